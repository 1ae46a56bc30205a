"""A Griffe extension for the API reference: the doctest examples of a docstring render as code.

The docstrings are Markdown with doctest examples (``>>> x``, then the
output), which Markdown would read as a paragraph, and whose brackets
(``x[0][1]``) as links. This wraps each example, from its first ``>>>``
line to the blank line that ends it, in a ``pycon`` fence.
"""

from __future__ import annotations

from typing import Any

from griffe import Extension


def fenced(text: str) -> str:
    """``text`` with each doctest example in a fence.

    >>> print(fenced("Adds.\\n\\n>>> 1 + 1\\n2\\n\\nMore."))
    Adds.
    <BLANKLINE>
    ```pycon
    >>> 1 + 1
    2
    ```
    <BLANKLINE>
    More.
    """
    out: list[str] = []
    inside = False
    indent = ""
    for line in text.splitlines():
        stripped = line.lstrip()
        if not inside and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not stripped:
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fenced(obj.docstring.value)
