"""MaiBot's SDK names, so MaiBot plugins run as written: ``MaiBotPlugin`` is ``Plugin``."""
from tsumugi_sdk import *  # noqa: F401,F403
from tsumugi_sdk import Plugin as MaiBotPlugin
from tsumugi_sdk import __all__ as _names

__all__ = ["MaiBotPlugin", *_names]
