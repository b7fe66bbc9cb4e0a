"""``python3 -m tsumugi_sdk.runner <entry>``: runs a Python plugin, speaking the stdio protocol
(docs/stdio-plugins.md) for it. Requests come one at a time and are answered in order; the
event loop runs throughout, so a plugin's own tasks keep running between requests."""
import asyncio
import logging
import sys
import threading
import traceback
from typing import Any, Dict, Optional, Union

from .bot import Bot, event_of
from .calling import parsed
from .class_style import ClassStyle
from .function_style import FunctionStyle
from .loader import load
from .host_requests import ANSWER_LINES, HostRequests
from .memory import MemoryAccess
from .pictures import pictures_of
from .wire import push, write_line

Style = Union[ClassStyle, FunctionStyle]


class Runner:
    def __init__(self, entry: str):
        self.entry = entry
        self.logger = plugin_logger("plugin")
        self.style: Optional[Style] = None
        self.self_id = ""
        # The bot's answers to `fetch_picture` and `memory_*` pushes.
        self.requests = HostRequests()

    async def handle(self, request: Dict[str, Any]) -> Dict[str, Any]:
        method = request.get("method")
        params = request.get("params") or {}
        if method == "activate":
            return await self.activate(params)
        if self.style is None:
            return {"error": "the plugin is not activated"}
        if method == "execute_tool":
            bot, event, context = self.call_context(params)
            return await self.style.execute_tool(params["toolName"], parsed(params.get("input")) or {},
                                                 bot, event, context)
        if method == "deactivate":
            await self.style.unload()
            return {"result": "ok"}
        if method == "config_changed":
            await self.style.config_changed(params.get("config") or {})
            return {"result": "ok"}
        if isinstance(self.style, ClassStyle):
            return await self.class_request(self.style, method, params)
        return {"error": f"unknown method: {method}"}

    async def activate(self, params: Dict[str, Any]) -> Dict[str, Any]:
        self.logger = plugin_logger(params.get("pluginId") or "plugin")
        # A plugin that cannot load fails its activation with the reason, which the bot shows.
        self.style = load(self.entry, self.logger)
        await self.style.configure(params.get("config") or {}, self.logger)
        return self.style.declarations()

    async def class_request(self, style: ClassStyle, method: Any, params: Dict[str, Any]) -> Dict[str, Any]:
        if method == "command":
            bot, event, context = self.call_context(params)
            return {"result": await style.command(params, bot, event, context)}
        if method == "hook":
            memory = MemoryAccess(params.get("callId", ""), self.requests)
            return {"hook_result": await style.hook(params, pictures_of(params, self.requests), memory)}
        if method == "enrich":
            return {"result": await style.enrich(params)}
        if method == "reply_extension":
            return {"result": await style.reply_extension(params) or {}}
        return {"error": f"unknown method: {method}"}

    def call_context(self, params: Dict[str, Any]):
        event = event_of(params)
        event.pictures = pictures_of(params, self.requests)
        event.memory = MemoryAccess(params.get("callId", ""), self.requests)
        bot = Bot(params.get("callId", ""), event.self_id or "", self.refresh_tools)
        context = {"call_id": params.get("callId"), "reply_id": params.get("replyId"),
                   "session_id": params.get("sessionId"), "channel": params.get("channel"),
                   "chat_id": params.get("chatId")}
        return bot, event, context

    def refresh_tools(self) -> None:
        if isinstance(self.style, FunctionStyle):
            self.style.refresh()
        push("tools", {"tools": self.style.tools() if self.style else []})


def plugin_logger(name: str) -> logging.Logger:
    """Lines on stderr, which the bot logs under the plugin's id."""
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger


async def serve(runner: Runner) -> None:
    loop = asyncio.get_running_loop()
    lines: "asyncio.Queue[Optional[str]]" = asyncio.Queue()

    def read() -> None:
        # stdin is read on a thread: a portable blocking read (asyncio pipes differ on Windows).
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=read, name="stdin", daemon=True).start()
    # Requests are answered in order, each after the one before; reading goes on meanwhile,
    # so a handler awaiting a picture or a memory gets the bot's answer line.
    previous: Optional["asyncio.Future[None]"] = None
    while True:
        line = await lines.get()
        if line is None:
            break
        if not line.strip():
            continue
        request = parsed(line)
        if isinstance(request, dict) and request.get("method") in ANSWER_LINES:
            runner.requests.settle(request.get("params") or {})
            continue
        previous = asyncio.ensure_future(answer_after(previous, runner, request))
    if previous is not None:
        await previous


async def answer_after(previous: Optional["asyncio.Future[None]"], runner: Runner, request: Any) -> None:
    if previous is not None:
        await previous
    write_line(await answer(runner, request))


async def answer(runner: Runner, request: Any) -> Dict[str, Any]:
    try:
        if not isinstance(request, dict):
            return {"error": "a request must be a JSON object"}
        return await runner.handle(request)
    except Exception as error:  # noqa: BLE001 — every failure becomes the call's error, the process lives on
        runner.logger.error("%s", traceback.format_exc().rstrip())
        return {"error": f"{type(error).__name__}: {error}"}


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m tsumugi_sdk.runner <entry: plugin.py or a package folder>")
    sys.stdout = sys.stderr
    asyncio.run(serve(Runner(sys.argv[1])))


if __name__ == "__main__":
    main()
