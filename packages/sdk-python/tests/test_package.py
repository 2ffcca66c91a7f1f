"""The wheel a user installs: its name, its Python floor, its types marker and the generated modules."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def test_the_wheel_is_verbatim_sdk_for_python_3_9_with_py_typed_and_the_generated_models(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(PACKAGE_DIR),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name.startswith("verbatim_sdk-")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(name).decode() for name in names if name.endswith(".dist-info/METADATA"))
    assert {
        "verbatim/py.typed",
        "verbatim/generated/models.py",
        "verbatim/generated/errors.py",
        "verbatim/generated/requests.py",
        "verbatim/generated/client.py",
        "verbatim/__main__.py",
    } <= names
    assert not any(name.startswith(("tests/", "samples/")) for name in names)
    assert "Requires-Python: >=3.9" in metadata
    assert "Requires-Dist: httpx" in metadata and "Requires-Dist: pydantic" in metadata
    assert "Requires-Dist: typing-extensions" in metadata
