"""Serves a ``Plugin`` subclass (class style) to the runner."""
from typing import Any, Callable, Dict, List, Tuple

from .bot import Bot, Event
from .calling import keywords_for, parsed, settle, tool_answer
from .memory import MemoryAccess
from .pictures import Picture
from .plugin import COMPONENT, Plugin

# The `activate` answer's list for each component kind.
LISTS = {"tool": "tools", "command": "commands", "hook": "hooks", "enricher": "enrichers",
         "reply_extension": "reply_extensions"}


class ClassStyle:
    def __init__(self, plugin: Plugin):
        if not isinstance(plugin, Plugin):
            raise TypeError(f"create_plugin() must return a Plugin (MaiBotPlugin) instance, not {type(plugin).__name__}")
        self.plugin = plugin
        self.handlers: Dict[Tuple[str, str], Callable] = {}
        self.declared: Dict[str, List[Dict[str, Any]]] = {name: [] for name in LISTS.values()}
        for attribute in dir(type(plugin)):
            component = getattr(getattr(type(plugin), attribute, None), COMPONENT, None)
            if component is None:
                continue
            declaration = component["declaration"]
            self.handlers[(component["kind"], declaration["name"])] = getattr(plugin, attribute)
            self.declared[LISTS[component["kind"]]].append(declaration)

    def declarations(self) -> Dict[str, Any]:
        return self.declared

    def tools(self) -> List[Dict[str, Any]]:
        return self.declared["tools"]

    async def configure(self, config: Dict[str, Any], logger: Any) -> None:
        self.plugin.config, self.plugin.logger = config, logger
        await settle(self.plugin.on_load())

    async def config_changed(self, config: Dict[str, Any]) -> None:
        self.plugin.config = config
        await settle(self.plugin.on_config_update(config))

    async def unload(self) -> None:
        await settle(self.plugin.on_unload())

    async def execute_tool(self, name: str, arguments: Dict[str, Any], bot: Bot, event: Event,
                           context: Dict[str, Any]) -> Dict[str, Any]:
        handler = self.handler("tool", name)
        keywords = {"bot": bot, "event": event, "config": self.plugin.config, **context, **arguments}
        return tool_answer(await settle(handler(**keywords_for(handler, keywords))))

    async def command(self, params: Dict[str, Any], bot: Bot, event: Event, context: Dict[str, Any]) -> Any:
        handler = self.handler("command", params["commandName"])
        keywords = {"bot": bot, "event": event, "config": self.plugin.config, "command": params.get("command"),
                    "args": params.get("args", []), "rest": params.get("rest", ""),
                    "is_admin": params.get("isAdmin", False), **context}
        return await settle(handler(**keywords_for(handler, keywords)))

    async def hook(self, params: Dict[str, Any], pictures: List[Picture], memory: MemoryAccess) -> Any:
        handler = self.handler("hook", params.get("hookName", ""))
        keywords = {
            "pictures": pictures, "memory": memory,
            "event": params.get("event"), "tool_name": params.get("toolName"),
            "tool_input": parsed(params.get("toolInput")), "session_id": params.get("sessionId"),
            "channel": params.get("channel"), "chat_id": params.get("chatId"), "reply_id": params.get("replyId"),
            "tool_output": params.get("toolOutput"), "error": params.get("error"), "prompt": params.get("prompt"),
            "status": params.get("status"), "reason": params.get("reason"),
        }
        return await settle(handler(**keywords_for(handler, keywords)))

    async def enrich(self, params: Dict[str, Any]) -> Any:
        handler = self.handler("enricher", params.get("enricherName", ""))
        keywords = {"session_id": params.get("sessionId"), "channel": params.get("channel"),
                    "chat_id": params.get("chatId"), "reply_id": params.get("replyId")}
        return await settle(handler(**keywords_for(handler, keywords)))

    async def reply_extension(self, params: Dict[str, Any]) -> Any:
        payload = dict(params)
        handler = self.handler("reply_extension", payload.pop("extensionName", ""))
        return await settle(handler(**keywords_for(handler, payload)))

    def handler(self, kind: str, name: str) -> Callable:
        found = self.handlers.get((kind, name))
        if found is None:
            raise LookupError(f"unknown {kind.replace('_', ' ')}: {name}")
        return found
