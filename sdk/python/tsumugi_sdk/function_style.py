"""Serves a function-declaration package (``plugin_description``, ``dynamic_imports``,
``function_declarations`` in its ``__init__.py``) to the runner."""
import importlib
import os
import sys
from types import ModuleType
from typing import Any, Callable, Dict, List

from .bot import Bot, Event
from .calling import settle, tool_answer


class LoadError(Exception):
    """The plugin cannot load as written; the message names what to fix."""


class FunctionStyle:
    def __init__(self, package: ModuleType, folder: str, logger: Any):
        self.package = package
        self.folder = folder
        self.logger = logger
        self.config: Dict[str, Any] = {}
        self.functions: Dict[str, Callable] = {}
        self.declared: List[Dict[str, Any]] = []
        self.read()

    def read(self) -> None:
        """Resolves every ``dynamic_imports`` path and checks every declared function exists."""
        functions: Dict[str, Callable] = {}
        for path, names in dict(getattr(self.package, "dynamic_imports", {}) or {}).items():
            module = self.module_at(path)
            for name in names:
                function = getattr(module, name, None)
                if not callable(function):
                    raise LoadError(f'dynamic_imports: "{path}" has no function "{name}"')
                functions[name] = function
        declared = [self.flat(i, d) for i, d in enumerate(self.package.function_declarations)]
        for declaration in declared:
            name = declaration.get("name")
            if name not in functions and callable(getattr(self.package, str(name), None)):
                functions[name] = getattr(self.package, name)
            if name not in functions:
                raise LoadError(f'function_declarations: "{name}" is in no dynamic_imports module')
        self.functions, self.declared = functions, declared

    def refresh(self) -> None:
        """Seed 004's ``refresh_tools()``: the package and its modules are read again."""
        # Files written since the last import (generated tools) are found only after this.
        importlib.invalidate_caches()
        # exec_module, not importlib.reload: the package was loaded from its folder, not found on sys.path.
        for module in [*self.imported(), self.package]:
            module.__spec__.loader.exec_module(module)
        self.read()

    def declarations(self) -> Dict[str, Any]:
        return {"tools": self.tools()}

    def tools(self) -> List[Dict[str, Any]]:
        return [{"name": d["name"], "description": d.get("description", ""),
                 "parameters": d.get("parameters") or {"type": "object", "properties": {}}} for d in self.declared]

    async def configure(self, config: Dict[str, Any], logger: Any) -> None:
        self.config = config

    async def config_changed(self, config: Dict[str, Any]) -> None:
        self.config = config

    async def unload(self) -> None:
        pass

    async def execute_tool(self, name: str, arguments: Dict[str, Any], bot: Bot, event: Event,
                           context: Dict[str, Any]) -> Dict[str, Any]:
        function = self.functions.get(name)
        if function is None:
            raise LookupError(f"unknown tool: {name}")
        return tool_answer(await settle(function(bot, event, self.config, **arguments)))

    def module_at(self, path: str) -> ModuleType:
        """A dotted path as Eridanus writes it (``run.gold_vault.service``), found inside the
        plugin folder: the longest tail of it that names a module there (``service.py``)."""
        parts = path.split(".")
        for start in range(len(parts)):
            tail = parts[start:]
            base = os.path.join(self.folder, *tail)
            if os.path.isfile(base + ".py") or os.path.isfile(os.path.join(base, "__init__.py")):
                return importlib.import_module(".".join([*self.prefix(), *tail]))
        if parts[-1] == os.path.basename(self.folder):
            return self.package
        raise LoadError(f'dynamic_imports: "{path}" is not a module in the plugin folder {self.folder}')

    def prefix(self) -> List[str]:
        """A package's modules are imported as its submodules; beside a module file, by their own name."""
        return [self.package.__name__] if hasattr(self.package, "__path__") else []

    def imported(self) -> List[ModuleType]:
        return [module for module in set(sys.modules.values()) if module is not None and module is not self.package
                and inside(getattr(module, "__file__", None), self.folder)]

    def flat(self, index: int, declaration: Dict[str, Any]) -> Dict[str, Any]:
        # Seed 004: entries are flat; the host wraps them per provider. Refused as the Node host refuses it.
        if declaration.get("type") == "function" and isinstance(declaration.get("function"), dict):
            raise LoadError(f'function_declarations[{index}] is wrapped in {{"type":"function","function":…}}: '
                            "declare it flat as {name, description, parameters}; the host wraps it per provider")
        return declaration


def inside(file: Any, folder: str) -> bool:
    return isinstance(file, str) and os.path.abspath(file).startswith(os.path.join(folder, ""))
