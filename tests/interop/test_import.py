"""``import chainrules`` imports no framework: the adapters load theirs only when imported themselves."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_chainrules_imports_no_framework() -> None:
    code = (
        "import json, sys\n"
        "import chainrules, chainrules.interop, chainrules_core.testing\n"
        "print(json.dumps(sorted(m for m in ('torch', 'jax', 'jaxlib', 'autograd') if m in sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []
