"""Message segments for ``bot.send`` and reply extensions: the vocabulary of docs/plugins.md §5."""
import base64
import os
from typing import Any, Dict, Union

Segment = Dict[str, Any]
FileLike = Union[bytes, str]


def Text(text: str) -> Segment:
    return {"type": "text", "data": str(text)}


def Image(file: FileLike, description: str = "") -> Segment:
    """A picture: its bytes, a file in the plugin folder, or a URL the OneBot side fetches
    itself (``https://…``, ``file:///…``, ``base64://…``)."""
    return _media("image", "image", file, description)


def Voice(file: FileLike, text: str = "") -> Segment:
    """A voice message (WAV, MP3, OGG, AMR, SILK, FLAC or M4A): bytes, a local file or a URL."""
    return _media("voice", "record", file, text)


def At(user_id: Union[str, int]) -> Segment:
    """Mentions a user ("all" mentions everyone)."""
    return {"type": "at", "data": str(user_id)}


def Reply(message_id: Union[str, int]) -> Segment:
    """Quotes a message; put it first."""
    return {"type": "reply", "data": str(message_id)}


def _media(kind: str, onebot_type: str, file: FileLike, text: str) -> Segment:
    if isinstance(file, str) and os.path.isfile(file):
        # A local file travels as its bytes, so it reaches a OneBot implementation on another machine too.
        with open(file, "rb") as handle:
            file = handle.read()
    if isinstance(file, (bytes, bytearray)):
        return {"type": kind, "data": text, "binary_data_base64": base64.b64encode(file).decode("ascii")}
    return {"type": "dict", "data": {"type": onebot_type, "data": {"file": file}}}
