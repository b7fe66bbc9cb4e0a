"""Long-term memory for the chat a call was made for (``event.memory``), under the bot's rules:
``memory_recall`` / ``memory_remember`` / ``memory_forget`` pushes, answered by the bot's
``memory`` line (docs/stdio-plugins.md)."""
from typing import Any, Dict, List, NamedTuple, Optional, Union

from .host_requests import HostRequests

About = Union[str, int, None]


class Memory(NamedTuple):
    """One memory: ``about`` is "person" (then ``user_id``) or "group" (then ``group_id``);
    times are Unix ms."""
    id: int
    about: str
    content: str
    subject_name: str
    created_at: int
    updated_at: int
    confirmations: int
    user_id: Optional[str] = None
    group_id: Optional[str] = None


class MemoryAccessError(RuntimeError):
    """The bot refused: memory is off (``memory.enabled: false``), ``about`` names nothing
    here, a query is empty without ``about``, the fact is empty or too long, or the call is
    over; the message says which."""


def memory_of(wire: Dict[str, Any]) -> Memory:
    return Memory(id=wire["id"], about=wire["about"], content=wire["content"],
                  subject_name=wire.get("subject_name", ""), created_at=wire.get("created_at", 0),
                  updated_at=wire.get("updated_at", 0), confirmations=wire.get("confirmations", 1),
                  user_id=wire.get("user_id"), group_id=wire.get("group_id"))


class MemoryAccess:
    """``event.memory``: what the bot remembers about people (everywhere on the platform) and
    about this chat's group (only here). ``about`` is a user id or "group"."""

    def __init__(self, call_id: str, requests: HostRequests):
        self._call_id = call_id
        self._requests = requests

    async def recall(self, query: str = "", about: About = None, limit: Optional[int] = None) -> List[Memory]:
        """Memories relevant to ``query``, best first: at most ``limit`` (default 5, at most 20).
        Without ``about``, every memory visible in the chat (``query`` must not be empty); with
        it, that subject's only (an empty ``query`` gives the newest). Memory off: ``[]``."""
        params: Dict[str, Any] = {"query": query}
        if limit is not None:
            params["limit"] = limit
        answer = await self._ask("memory_recall", params, about)
        return [memory_of(wire) for wire in answer.get("memories") or []]

    async def remember(self, content: str, about: About = None) -> Memory:
        """Remembers one short fact (at most 300 characters) about ``about`` (default the
        sender), learned from the call's message; a fact saying the same as one already known
        rewords and confirms that one."""
        answer = await self._ask("memory_remember", {"content": content}, about)
        return memory_of(answer["memory"])

    async def forget(self, memory_id: int) -> bool:
        """Deletes one memory this call could recall; False when there is none."""
        answer = await self._ask("memory_forget", {"id": memory_id}, None)
        return bool(answer.get("forgotten"))

    async def _ask(self, method: str, params: Dict[str, Any], about: About) -> Dict[str, Any]:
        if about is not None:
            params["about"] = str(about)
        answer = await self._requests.ask(method, {"callId": self._call_id, **params})
        if answer.get("error"):
            raise MemoryAccessError(answer["error"])
        return answer
