"""Class style (MaiBot's): a ``Plugin`` subclass whose decorated methods are its components."""
import logging
from typing import Any, Callable, Dict, List, Optional, Union

Parameters = Union[Dict[str, Any], List[Dict[str, Any]], None]

COMPONENT = "__tsumugi_component__"


class ToolParameterInfo(dict):
    """One parameter in the list form of ``parameters``: ``ToolParameterInfo("city", "string", "城市", True)``."""

    def __init__(self, name: str, type: str = "string", description: str = "", required: bool = False, **schema: Any):
        super().__init__(name=name, type=type, description=description, required=required, **schema)


class Plugin:
    """Subclass it, decorate methods with ``@Tool``, ``@Command``, ``@Hook``, ``@Enricher`` or
    ``@ReplyExtension``, and return an instance from the module's ``create_plugin()``.
    ``self.config`` is the plugin's config (plugin.json's schema, defaults filled);
    ``self.logger`` writes to the bot's log."""

    config: Dict[str, Any] = {}
    logger: logging.Logger = logging.getLogger("plugin")

    async def on_load(self) -> None:
        """Called once the plugin is activated, ``self.config`` set."""

    async def on_unload(self) -> None:
        """Called when the plugin is disabled, reloaded or the bot stops."""

    async def on_config_update(self, config: Dict[str, Any]) -> None:
        """Called after ``self.config`` changed to ``config``."""


def _declare(kind: str, arguments: Dict[str, Any]) -> Callable[[Callable], Callable]:
    """Marks the method as a component declared with the decorator's ``arguments`` (its
    ``locals()``: name and options); ``None`` options are left for the host's defaults."""
    declaration = {key: value for key, value in arguments.items() if value is not None}

    def mark(method: Callable) -> Callable:
        setattr(method, COMPONENT, {"kind": kind, "declaration": declaration})
        return method

    return mark


def Tool(
    name: str,
    description: str = "",
    parameters: Parameters = None,
    *,
    timeout_ms: Optional[int] = None,
    chat_scope: str = "all",
    allowed_session: Optional[List[str]] = None,
    enabled: bool = True,
) -> Callable[[Callable], Callable]:
    """A tool the planner can call with the model's arguments as keywords. Return a dict or text
    for the model to see and answer; return None when the tool already acted (``bot.send``)
    and the turn is done."""
    return _declare("tool", locals())


def Command(
    name: str,
    description: str = "",
    *,
    prefix: Union[str, List[str], None] = None,
    pattern: Optional[str] = None,
    usage: Optional[str] = None,
    admin_only: bool = False,
    chat_scope: str = "all",
    allowed_session: Optional[List[str]] = None,
    enabled: bool = True,
) -> Callable[[Callable], Callable]:
    """A chat command answered without the model (default prefix ``/<name>``; ``pattern`` is a
    regular expression instead). Returns text, a segment, a list of segments or None."""
    return _declare("command", locals())


def Hook(
    name: str,
    *,
    event: str,
    matcher: Optional[str] = None,
    timeout_ms: Optional[int] = None,
    chat_scope: str = "all",
    allowed_session: Optional[List[str]] = None,
    enabled: bool = True,
) -> Callable[[Callable], Callable]:
    """A lifecycle hook (``PreToolUse``, ``PostToolUse``, ``UserPromptSubmit``, …). Returns
    ``{"decision": "allow" | "deny" | "ask" | "defer", "message": "…"}`` or None (allow)."""
    return _declare("hook", locals())


def Enricher(
    name: str,
    description: str = "",
    *,
    timeout_ms: Optional[int] = None,
    chat_scope: str = "all",
    allowed_session: Optional[List[str]] = None,
    enabled: bool = True,
) -> Callable[[Callable], Callable]:
    """Text for the planner's system prompt of each turn; returns text or None."""
    return _declare("enricher", locals())


def ReplyExtension(
    name: str,
    description: str = "",
    parameters: Parameters = None,
    *,
    priority: int = 0,
    timeout_ms: int = 60000,
    chat_scope: str = "all",
    allowed_session: Optional[List[str]] = None,
    enabled: bool = True,
) -> Callable[[Callable], Callable]:
    """A reply extension, called with ``phase``, ``reply_id``, ``call_id``,
    ``session_id``, ``reply_message_id``, ``chat``, ``parameters``, ``text`` and ``messages``."""
    return _declare("reply_extension", locals())
