"""What a handler gets to act in the chat: ``bot`` and ``event``."""
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Optional, Union

from .segments import Segment
from .wire import push

Message = Union[str, Segment, List[Segment]]


class Event(SimpleNamespace):
    """The message a call was made for, with attribute access (``event.user_id``,
    ``event.pure_text``); a field the chat does not have (``group_id`` in a private chat) is
    None. Ids are strings."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class Bot:
    """Sends into the chat of the call in flight; one is made for each tool or command call."""

    def __init__(self, call_id: str, self_id: str, refresh: Callable[[], None]):
        self._call_id = call_id
        self.self_id = self_id
        self._refresh = refresh

    async def send(self, event: Optional[Event], message: Message) -> None:
        """Sends text, one segment or a list of segments to the chat ``event`` came from (the
        call's chat: the event is there for the function-declaration style's
        ``bot.send(event, message)``)."""
        if isinstance(message, (list, tuple)):
            message = list(message)
        push("send_message", {"callId": self._call_id, "message": message})

    def refresh_tools(self) -> None:
        """Reads the tool declarations again; the planner's next round sees them."""
        self._refresh()


def event_of(params: Dict[str, Any]) -> Event:
    return Event(**(params.get("event") or {}))
