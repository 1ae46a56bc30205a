"""The doctests of a framework's module are collected only where that framework is installed."""

import importlib.util

collect_ignore = [f"{name}.py" for name in ("torch", "jax", "autograd") if importlib.util.find_spec(name) is None]
