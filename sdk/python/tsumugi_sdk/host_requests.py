"""Pushes the bot answers with a line of its own, carrying the push's ``requestId``:
``fetch_picture`` → ``picture``, ``memory_recall`` / ``memory_remember`` / ``memory_forget`` →
``memory`` (docs/stdio-plugins.md). The runner keeps reading stdin while a handler waits."""
import asyncio
from typing import Any, Dict

from .wire import push

# The lines the bot writes to answer a push; the runner hands each to ``HostRequests.settle``.
ANSWER_LINES = ("picture", "memory")


class HostRequests:
    """Pushes waiting for the bot's answer, by request id."""

    def __init__(self) -> None:
        self.waiting: Dict[str, "asyncio.Future[Dict[str, Any]]"] = {}
        self.sent = 0

    async def ask(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        """Pushes ``method`` with ``params`` and a new request id; resolves with the answer's params."""
        self.sent += 1
        request_id = str(self.sent)
        future: "asyncio.Future[Dict[str, Any]]" = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        push(method, {**params, "requestId": request_id})
        try:
            return await future
        finally:
            self.waiting.pop(request_id, None)

    def settle(self, params: Dict[str, Any]) -> None:
        """An answer line from the bot; one nobody waits for any more is dropped."""
        future = self.waiting.get(str(params.get("requestId")))
        if future is not None and not future.done():
            future.set_result(params)
