"""The examples in the package's docstrings (written in the Rust source) run and say
what they show: every public function has one. Each runs in a fresh interpreter, as a
reader would try it (the state-file and daemon examples depend on whether a UUID was
made before)."""

import doctest
import subprocess
import sys

import pytest

import uuidkit

FUNCTIONS = sorted(
    name for name in uuidkit.__all__ if callable(getattr(uuidkit, name)) and name[0].islower()
)

RUN = """
import doctest, sys, uuid, uuidkit
name = sys.argv[1]
obj = uuidkit if name == "uuidkit" else getattr(uuidkit, name)
test = doctest.DocTestParser().get_doctest(
    obj.__doc__ or "", {"uuidkit": uuidkit, "uuid": uuid}, name, None, 0
)
if not test.examples:
    sys.exit(f"{name} has no example in its docstring")
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
runner.run(test)
sys.exit(1 if runner.failures else 0)
"""


@pytest.mark.parametrize("name", FUNCTIONS + ["uuidkit"])
def test_docstring_example_runs(name):
    r = subprocess.run(
        [sys.executable, "-c", RUN, name], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, f"{name}'s docstring example failed:\n{r.stdout}{r.stderr}"


def test_every_public_function_is_documented():
    assert len(FUNCTIONS) >= 20
    for name in FUNCTIONS:
        assert len(getattr(uuidkit, name).__doc__ or "") > 80, name
