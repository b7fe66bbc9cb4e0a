"""Tsumugi's Python plugin SDK (standard library only, Python ≥ 3.9). See docs/python-plugins.md."""
from .bot import Bot, Event
from .memory import Memory, MemoryAccess, MemoryAccessError
from .pictures import Picture, PictureBytes, PictureError
from .plugin import Command, Enricher, Hook, Plugin, ReplyExtension, Tool, ToolParameterInfo
from .segments import At, Image, Reply, Text, Voice

__all__ = ["At", "Bot", "Command", "Enricher", "Event", "Hook", "Image", "Memory", "MemoryAccess", "MemoryAccessError",
           "Picture", "PictureBytes", "PictureError", "Plugin", "Reply", "ReplyExtension", "Text", "Tool",
           "ToolParameterInfo", "Voice"]
