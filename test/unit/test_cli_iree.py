"""``texport compile FILE -o MODEL.vmfb`` and ``texport run --backend iree FILE``,
run in-process (the routes are the hand-written test routes of iree_test_routes.py,
so a failure is the backend's or the command's, not a lowering's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import texport
from texport.export.serialization import save
from texport.tools.texport_cli import main

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from iree_test_routes import Relu, hide_iree, install_test_routes, private_cache  # noqa: E402


@pytest.fixture(autouse=True)
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    private_cache(tmp_path, monkeypatch)
    return install_test_routes(monkeypatch)


@pytest.fixture
def relu_file(tmp_path: Path) -> Path:
    x = texport.tensor(np.array([[-1.5, 2.0, 0.25], [3.0, -0.5, -4.0]], np.float32))
    path = tmp_path / "relu.texport"
    save(texport.export.export(Relu(), (x,)), str(path))
    return path


def _outputs(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as stored:
        return dict(stored)


def test_run_with_iree_prints_and_writes_the_interpreters_outputs(relu_file: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(relu_file), "--outputs", str(tmp_path / "interpreted.npz")]) == 0
    interpreted = capsys.readouterr().out
    assert main(["run", "--backend", "iree", "--route", "test-relu", str(relu_file),
                 "--outputs", str(tmp_path / "native.npz")]) == 0
    assert capsys.readouterr().out == interpreted
    want, got = _outputs(tmp_path / "interpreted.npz"), _outputs(tmp_path / "native.npz")
    assert want.keys() == got.keys() == {"out"}
    np.testing.assert_allclose(got["out"], np.maximum([[-1.5, 2.0, 0.25], [3.0, -0.5, -4.0]], 0), atol=1e-6)


def test_compile_writes_a_module_iree_runs(relu_file: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import iree.runtime as runtime

    out = tmp_path / "relu.vmfb"
    assert main(["compile", str(relu_file), "-o", str(out), "--route", "test-relu"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    config = runtime.Config("local-task")
    context = runtime.SystemContext(config=config)
    module = runtime.VmModule.copy_buffer(config.vm_instance, out.read_bytes())
    context.add_vm_module(module)
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], np.float32)
    got = context.modules[module.name]["forward"](x).to_host()
    np.testing.assert_array_equal(got, np.maximum(x, 0))


def test_compile_takes_a_core_programs_mlir(relu_file: Path, tmp_path: Path, setup: dict[str, Any]) -> None:
    text = tmp_path / "relu.mlir"
    text.write_text(texport.load(str(relu_file)).run_decompositions().mlir())
    assert main(["compile", str(text), "-o", str(tmp_path / "relu.vmfb"), "--route", "test-relu"]) == 0
    (module,) = setup["relu"].calls
    assert "core.relu" in str(module)
    assert (tmp_path / "relu.vmfb").stat().st_size > 0


def test_errors_are_one_paragraph(relu_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "m.vmfb")
    assert main(["compile", str(relu_file), "-o", out, "--route", "nope"]) == 2
    assert "--route nope: no such route (routes: linalg, torch" in capsys.readouterr().err
    assert main(["run", str(relu_file), "--route", "test-relu"]) == 2  # the interpreter has no routes
    assert "it goes with --backend iree" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:  # -o is required
        main(["compile", str(relu_file)])
    assert usage.value.code == 2
    capsys.readouterr()
    hide_iree(monkeypatch)
    assert main(["compile", str(relu_file), "-o", out, "--route", "test-relu"]) == 1
    err = capsys.readouterr().err
    assert "pip install texport[iree]" in err and "Traceback" not in err
    assert not Path(out).exists()
