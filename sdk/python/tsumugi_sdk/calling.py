"""Calling an author's handler: sync or async, given only the keywords it takes."""
import inspect
import json
from typing import Any, Callable, Dict, Tuple

_accepted: Dict[Callable, Tuple[bool, frozenset]] = {}


def keywords_for(handler: Callable, keywords: Dict[str, Any]) -> Dict[str, Any]:
    """All of ``keywords`` for a handler with ``**kwargs``, else only those it names, so
    ``async def weather(self, city)`` works beside ``async def weather(self, city, *, bot, event)``."""
    key = getattr(handler, "__func__", handler)
    known = _accepted.get(key)
    if known is None:
        parameters = inspect.signature(handler).parameters.values()
        takes_any = any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters)
        known = (takes_any, frozenset(parameter.name for parameter in parameters))
        _accepted[key] = known
    takes_any, names = known
    return keywords if takes_any else {name: value for name, value in keywords.items() if name in names}


async def settle(value: Any) -> Any:
    """The value, awaited when the handler was async."""
    return await value if inspect.isawaitable(value) else value


def tool_answer(value: Any) -> Dict[str, Any]:
    """A tool's return as the protocol's answer: None = acted (the turn ends without another
    model call), text as it is, anything else as JSON for the model."""
    if value is None:
        return {"acted": True}
    if isinstance(value, str):
        return {"result": value}
    return {"result": json.dumps(value, ensure_ascii=False, default=str)}


def parsed(text: Any) -> Any:
    """A JSON string of the wire (``input``, ``toolInput``) as a value; other text stays text."""
    if not isinstance(text, str) or not text:
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
