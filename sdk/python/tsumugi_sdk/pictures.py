"""The pictures of the message a call was made for (``event.pictures``), fetched through the bot
with its limits: a ``fetch_picture`` push, answered by the bot's ``picture`` line."""
import base64
from typing import Any, Dict, List, NamedTuple, Optional

from .host_requests import HostRequests


class PictureBytes(NamedTuple):
    """A fetched picture: its type (by magic bytes), its bytes and their hex SHA-256."""
    mime: str
    bytes: bytes
    sha256: str


class PictureError(RuntimeError):
    """The bot could not fetch the picture; the message says why."""


class Picture:
    """One picture of the message: ``kind`` ("image" or "sticker"), ``file_id`` and
    ``description`` (None when unknown); ``await picture.fetch()`` gets its bytes."""

    def __init__(self, wire: Dict[str, Any], call_id: str, requests: HostRequests):
        self.index: int = wire.get("index", 0)
        self.kind: str = wire.get("kind", "image")
        self.file_id: Optional[str] = wire.get("fileId")
        self.description: Optional[str] = wire.get("description")
        self._call_id = call_id
        self._requests = requests

    async def fetch(self) -> PictureBytes:
        """The picture's bytes, fetched by the bot with every limit of its own fetches (size,
        time, addresses, type); raises ``PictureError`` with the reason when it cannot."""
        answer = await self._requests.ask("fetch_picture", {"callId": self._call_id, "index": self.index})
        if answer.get("error"):
            raise PictureError(answer["error"])
        return PictureBytes(answer["mime"], base64.b64decode(answer["base64"]), answer["sha256"])

    def __repr__(self) -> str:
        return f"Picture(kind={self.kind!r}, file_id={self.file_id!r}, description={self.description!r})"


def pictures_of(params: Dict[str, Any], requests: HostRequests) -> List[Picture]:
    call_id = params.get("callId", "")
    return [Picture(wire, call_id, requests) for wire in params.get("pictures") or []]
