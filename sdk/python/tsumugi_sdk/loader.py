"""Imports a plugin's entry and tells its style: ``create_plugin()`` (class style) or
``function_declarations`` (the function-declaration style)."""
import importlib.util
import os
import re
import sys
from types import ModuleType
from typing import Any, Union

from .class_style import ClassStyle
from .function_style import FunctionStyle, LoadError


def load(entry: str, logger: Any) -> Union[ClassStyle, FunctionStyle]:
    """``entry`` is relative to the plugin folder (the working directory): a module file, a
    package folder or its ``__init__.py``."""
    plugin_folder = os.getcwd()
    # The plugin's own modules and helpers import by name from its folder.
    sys.path.insert(0, plugin_folder)
    path = os.path.abspath(entry)
    if os.path.basename(path) == "__init__.py":
        path = os.path.dirname(path)
    if os.path.isdir(path):
        module = import_file(os.path.basename(path), os.path.join(path, "__init__.py"), package=path)
        folder = path
    elif os.path.isfile(path):
        module = import_file(os.path.splitext(os.path.basename(path))[0], path)
        folder = os.path.dirname(path)
    else:
        raise LoadError(f'entry "{entry}" is neither a Python file nor a package folder')
    if callable(getattr(module, "create_plugin", None)):
        return ClassStyle(module.create_plugin())
    if hasattr(module, "function_declarations"):
        return FunctionStyle(module, folder, logger)
    raise LoadError(f'"{entry}" defines neither create_plugin() nor function_declarations')


def import_file(name: str, file: str, package: Union[str, None] = None) -> ModuleType:
    if not os.path.isfile(file):
        raise LoadError(f"{file} does not exist")
    name = re.sub(r"\W", "_", name)
    locations = [package] if package else None
    spec = importlib.util.spec_from_file_location(name, file, submodule_search_locations=locations)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
