"""The installed package carries its type stubs and the PEP 561 marker, and the stubs
name exactly what the module has."""

import ast
import pathlib

import uuidkit

PACKAGE = pathlib.Path(uuidkit.__file__).parent


def stub_names():
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_version_is_the_crates():
    assert uuidkit.__version__.count(".") == 2 and "__version__" in stub_names()


def test_py_typed_and_stub_are_installed():
    assert (PACKAGE / "py.typed").is_file()
    assert (PACKAGE / "__init__.pyi").is_file()


def test_stub_names_every_public_name():
    missing = set(uuidkit.__all__) - stub_names()
    assert not missing, f"in uuidkit.__all__ but not in the stub: {sorted(missing)}"


def test_every_stub_function_exists():
    private = {"Form", "Method", "Layout", "TimeArg", "Name"}
    extra = {n for n in stub_names() - private if not n.startswith("_")} - set(dir(uuidkit))
    assert not extra, f"in the stub but not in the module: {sorted(extra)}"
