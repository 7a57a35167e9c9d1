"""The bridge's commands: ``texport import MODEL.pt2`` reads a torch.export.save
archive with torch's loader and writes texport's archive; ``texport export --torch
MODEL.py`` exports a real-torch model file with torch and imports torch's program.
The written programs run on texport's interpreter with torch's numbers; a bad
archive and a missing torch are clear one-paragraph errors."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the bridge's commands need real torch: pip install -e '.[parity]'")

import texport  # noqa: E402
from texport.export.serialization import load  # noqa: E402
from texport.tools.texport_cli import main  # noqa: E402

MODEL_FILE = textwrap.dedent("""\
    import torch


    class Scale(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)
            self.register_buffer("shift", torch.arange(3.0))

        def forward(self, x):
            return torch.relu(self.linear(x)) + self.shift


    def make_scale():
        torch.manual_seed(0)
        return Scale(), (torch.randn(2, 4),)
    """)


def _model() -> tuple[Any, Any]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.ReLU()).eval()
    return model, torch.randn(2, 4)


def _assert_runs_with_torchs_numbers(path: Path, model: Any, x: Any) -> None:
    ep = load(path)
    got = ep.module()(texport.from_numpy(x.numpy().copy()))
    np.testing.assert_allclose(got.numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.fixture
def pt2(tmp_path: Path) -> tuple[Path, Any, Any]:
    model, x = _model()
    batch = torch.export.Dim("batch", min=2, max=32)
    path = tmp_path / "model.pt2"
    torch.export.save(torch.export.export(model, (x,), dynamic_shapes=({0: batch},)), path)
    return path, model, x


def test_import_writes_texports_archive(pt2: tuple[Path, Any, Any], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path, model, x = pt2
    out = tmp_path / "model.texport"
    assert main(["import", str(path), "-o", str(out)]) == 0
    assert f"wrote {out}: TRAINING program" in capsys.readouterr().out
    _assert_runs_with_torchs_numbers(out, model, x)
    _assert_runs_with_torchs_numbers(out, model, torch.randn(5, 4))  # the batch stays dynamic


def test_import_prints_the_ir_without_output(pt2: tuple[Path, Any, Any], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(pt2[0])]) == 0
    text = capsys.readouterr().out
    assert "func.func @forward(" in text and "training.linear" in text


def test_import_keeps_the_archives_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model, x = _model()
    path, out = tmp_path / "core.pt2", tmp_path / "core.texport"
    torch.export.save(torch.export.export(model, (x,)).run_decompositions(), path)
    assert main(["import", str(path), "-o", str(out)]) == 0
    assert "ATEN program" in capsys.readouterr().out
    _assert_runs_with_torchs_numbers(out, model, x)


@pytest.mark.parametrize("content", [b"not a zip", b"PK\x03\x04 truncated zip"])
def test_import_of_a_bad_archive_is_a_clear_error(tmp_path: Path, content: bytes,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.pt2"
    path.write_bytes(content)
    assert main(["import", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"texport: error: {path} is not an archive torch.export.load" in err
    assert "expected a torch.export.save file" in err and "torch says" in err
    assert "Traceback" not in err


def test_import_of_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(tmp_path / "none.pt2")]) == 1
    assert "No such file or directory" in capsys.readouterr().err


def test_export_torch_model_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model_file, out = tmp_path / "scale.py", tmp_path / "scale.texport"
    model_file.write_text(MODEL_FILE)
    assert main(["export", "--torch", str(model_file), "--dynamic", "batch=0:1..16", "-o", str(out)]) == 0
    assert "TRAINING program" in capsys.readouterr().out
    ep = load(out)
    assert [str(symbol) for symbol in ep.range_constraints] != []  # torch's symbol for the batch
    namespace: dict[str, Any] = {}
    exec(compile(MODEL_FILE, str(model_file), "exec"), namespace)  # noqa: S102 - our own model file
    model, (x,) = namespace["make_scale"]()
    _assert_runs_with_torchs_numbers(out, model, x)
    _assert_runs_with_torchs_numbers(out, model, torch.randn(7, 4))


@pytest.mark.parametrize(("level", "dialect"), [("functional", "INFERENCE"), ("core", "ATEN")])
def test_export_torch_at_a_level(tmp_path: Path, level: str, dialect: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    model_file, out = tmp_path / "scale.py", tmp_path / "scale.texport"
    model_file.write_text(MODEL_FILE)
    assert main(["export", "--torch", str(model_file), "--level", level, "-o", str(out)]) == 0
    assert f"{dialect} program" in capsys.readouterr().out
    namespace: dict[str, Any] = {}
    exec(compile(MODEL_FILE, str(model_file), "exec"), namespace)  # noqa: S102 - our own model file
    model, (x,) = namespace["make_scale"]()
    _assert_runs_with_torchs_numbers(out, model, x)


def test_export_torch_error_in_the_model_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model_file = tmp_path / "broken.py"
    model_file.write_text(MODEL_FILE.replace("return torch.relu(self.linear(x)) + self.shift",
                                             "return self.linear(x) @ self.shift.reshape(2, 2)"))
    assert main(["export", "--torch", str(model_file)]) == 1
    err = capsys.readouterr().err
    assert "broken.py" in err and "self.shift.reshape(2, 2)" in err and "Traceback" not in err


def test_without_torch_the_commands_name_the_extra(pt2: tuple[Path, Any, Any], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    model_file = tmp_path / "scale.py"
    model_file.write_text(MODEL_FILE)
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now fails as if it were absent
    assert main(["import", str(pt2[0])]) == 1
    assert "needs PyTorch (torch 2.13), which is not installed: pip install texport[torch]" in capsys.readouterr().err
    assert main(["export", "--torch", str(model_file)]) == 1
    assert "pip install texport[torch]" in capsys.readouterr().err


def test_export_torch_needs_a_model_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--torch"]) == 2
    assert "--torch needs a model file" in capsys.readouterr().err
