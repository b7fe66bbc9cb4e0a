"""The JSON-lines framing of the stdio protocol (docs/stdio-plugins.md): one object a line on stdout."""
import json
import sys
from typing import Any, Dict


# The protocol's own stream, kept before the runner points sys.stdout at stderr, so a plugin's
# print() lands in the bot's log instead of breaking the protocol.
PROTOCOL = sys.stdout


def write_line(message: Dict[str, Any]) -> None:
    PROTOCOL.write(json.dumps(message, ensure_ascii=False, default=str) + "\n")
    PROTOCOL.flush()


def push(method: str, params: Dict[str, Any]) -> None:
    """A line the host reads as a push: ``method`` and no ``result`` / ``error``."""
    write_line({"method": method, "params": params})
