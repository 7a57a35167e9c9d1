"""Real third-party models for the bridge's tests and benchmark: torchvision,
timm and Hugging Face transformers models, small, with seeded random weights (no
download), in eval mode, each with its example inputs, a second input of other
dynamic sizes and the dynamic shapes torch exports it with.

The packages are optional: ``build(model)`` imports the one a model needs when
it is built (``import_package``, ModuleNotFoundError without it: the tests skip).
Every import of them goes through ``import_package``, which first works around
torchvision's C extension (``define_torchvision_schemas``: the one place for it).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class ThirdPartyModel:
    """One model: ``build()`` gives the torch module (seeded, eval mode) and
    ``inputs(torch, generator, second)`` its positional inputs (the second call's
    have other dynamic sizes); ``dynamic(torch)`` the dynamic_shapes for export."""

    name: str
    package: str
    build: Callable[[Any], Any]
    inputs: Callable[[Any, Any, bool], tuple[Any, ...]]
    dynamic: Callable[[Any], Any]
    rtol: float = 1e-4
    atol: float = 1e-5
    slow: bool = False  # torch's run_decompositions of it takes 5-10 s: its lowered levels are marked slow


# --------------------------------------------------------------------------
# torchvision's C extension
# --------------------------------------------------------------------------


def define_torchvision_schemas() -> None:
    """Lets torchvision import beside CPU torch (call before importing torchvision,
    timm or transformers, which import torchvision themselves when it is there).

    torchvision 0.28.0 from PyPI is a CUDA build: its C extension does not load
    beside torch 2.13.0+cpu, and then ``import torchvision`` fails on its own
    ``register_fake("torchvision::nms")``, whose schema the extension would have
    defined. Defining the two schemas torchvision registers fakes for without a
    guard lets the pure-Python models (everything these tests use) import; the
    detection ops stay unusable, as they are without the extension anyway."""
    import torch

    if "torchvision" in sys.modules or hasattr(torch.ops.torchvision, "nms"):
        return
    library = torch.library.Library("torchvision", "FRAGMENT")
    library.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    library.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _LIBRARIES.append(library)  # a Library's definitions last as long as the object


_LIBRARIES: list[Any] = []


def import_package(package: str) -> Any:
    """A package the models need (torch, torchvision, timm, transformers); ModuleNotFoundError when absent."""
    define_torchvision_schemas()
    return importlib.import_module(package)


def import_torchvision() -> Any:
    return import_package("torchvision")


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _images(size: int, batches: tuple[int, int] = (2, 3)) -> Callable[[Any, Any, bool], tuple[Any, ...]]:
    def inputs(torch: Any, generator: Any, second: bool) -> tuple[Any, ...]:
        return (torch.randn(batches[second], 3, size, size, generator=generator),)
    return inputs


def _tokens(vocab: int, shapes: tuple[tuple[int, int], tuple[int, int]] = ((2, 8), (3, 5)),
            ) -> Callable[[Any, Any, bool], tuple[Any, ...]]:
    def inputs(torch: Any, generator: Any, second: bool) -> tuple[Any, ...]:
        return (torch.randint(0, vocab, shapes[second], generator=generator),)
    return inputs


def _batch(torch: Any) -> Any:
    return ({0: torch.export.Dim("batch", min=1, max=64)},)


def _batch_and_sequence(torch: Any) -> Any:
    return ({0: torch.export.Dim("batch", min=1, max=64), 1: torch.export.Dim("seq", min=2, max=64)},)


def _t5_dynamic(torch: Any) -> Any:
    batch = torch.export.Dim("batch", min=1, max=64)
    return ({0: batch, 1: torch.export.Dim("seq", min=2, max=64)},
            {0: batch, 1: torch.export.Dim("target", min=2, max=64)})


def _t5_inputs(torch: Any, generator: Any, second: bool) -> tuple[Any, ...]:
    (batch, source, target) = (3, 6, 4) if second else (2, 8, 5)
    return (torch.randint(0, 100, (batch, source), generator=generator),
            torch.randint(0, 100, (batch, target), generator=generator))


# --------------------------------------------------------------------------
# Builders (each seeds torch first: the same weights every time)
# --------------------------------------------------------------------------


def _resnet18(torch: Any) -> Any:
    return import_torchvision().models.resnet18(num_classes=10)


def _mobilenet_v3_small(torch: Any) -> Any:
    return import_torchvision().models.mobilenet_v3_small(num_classes=10)


def _vit(torch: Any) -> Any:
    return import_torchvision().models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10)


def _timm_resnet10t(torch: Any) -> Any:
    return import_package("timm").create_model("resnet10t", pretrained=False, num_classes=10)


def _bert(torch: Any) -> Any:
    transformers = import_package("transformers")
    config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=64, max_position_embeddings=64)
    return _Outputs(transformers.BertModel(config), ("input_ids",), ("last_hidden_state", "pooler_output"), torch)


def _gpt2(torch: Any) -> Any:
    transformers = import_package("transformers")
    # eager attention: torch 2.13's run_decompositions() fails on GPT-2's sdpa path with any
    # dynamic dim ("Cannot view a tensor with shape [s72, s70, 32] and strides (32, 32*s72, 1)")
    config = transformers.GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64,
                                     bos_token_id=0, eos_token_id=0, use_cache=False,
                                     attn_implementation="eager")
    return _Outputs(transformers.GPT2LMHeadModel(config), ("input_ids",), ("logits",), torch)


def _llama(torch: Any) -> Any:
    transformers = import_package("transformers")
    config = transformers.LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                                      use_cache=False)
    return _Outputs(transformers.LlamaForCausalLM(config), ("input_ids",), ("logits",), torch)


def _t5(torch: Any) -> Any:
    transformers = import_package("transformers")
    # one encoder and one decoder block: the first holds the relative attention bias, so every op is there
    config = transformers.T5Config(vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=1, num_heads=2,
                                   decoder_start_token_id=0, use_cache=False)
    return _Outputs(transformers.T5ForConditionalGeneration(config), ("input_ids", "decoder_input_ids"),
                    ("logits",), torch)


def _Outputs(model: Any, inputs: tuple[str, ...], outputs: tuple[str, ...], torch: Any) -> Any:
    """A Hugging Face model called with positional tensors and returning plain tensors:
    its ModelOutput's other fields (hidden states, encoder outputs) are not what the
    tests compare, and positional inputs are what dynamic_shapes name by position."""

    class HuggingFaceOutputs(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def outputs(self, **named: Any) -> Any:
            found = self.model(**named)
            picked = tuple(getattr(found, name) for name in outputs)
            return picked[0] if len(picked) == 1 else picked

    class TextInput(HuggingFaceOutputs):
        def forward(self, input_ids: Any) -> Any:
            return self.outputs(input_ids=input_ids)

    class TextAndDecoderInputs(HuggingFaceOutputs):
        def forward(self, input_ids: Any, decoder_input_ids: Any) -> Any:
            return self.outputs(input_ids=input_ids, decoder_input_ids=decoder_input_ids)

    return TextInput() if inputs == ("input_ids",) else TextAndDecoderInputs()


MODELS = {model.name: model for model in (
    ThirdPartyModel("resnet18", "torchvision", _resnet18, _images(32), _batch),
    ThirdPartyModel("mobilenet_v3_small", "torchvision", _mobilenet_v3_small, _images(32), _batch, slow=True),
    ThirdPartyModel("vit", "torchvision", _vit, _images(32), _batch),
    ThirdPartyModel("timm_resnet10t", "timm", _timm_resnet10t, _images(32), _batch),
    ThirdPartyModel("bert", "transformers", _bert, _tokens(100), _batch_and_sequence),
    ThirdPartyModel("gpt2", "transformers", _gpt2, _tokens(100), _batch_and_sequence),
    ThirdPartyModel("llama", "transformers", _llama, _tokens(100), _batch_and_sequence),
    ThirdPartyModel("t5", "transformers", _t5, _t5_inputs, _t5_dynamic, slow=True),
)}


def build(model: ThirdPartyModel) -> Any:
    """The torch module, seeded and in eval mode (its package must import)."""
    import torch

    import_package(model.package)
    torch.manual_seed(0)
    module = model.build(torch)
    return module.eval()


def example_inputs(model: ThirdPartyModel, second: bool = False) -> tuple[Any, ...]:
    import torch

    generator = torch.Generator().manual_seed(1 + second)
    return model.inputs(torch, generator, second)


def export(model: ThirdPartyModel, module: Any | None = None) -> Any:
    """torch's training-level program of the model, with its dynamic dims."""
    import torch

    module = build(model) if module is None else module
    return torch.export.export(module, example_inputs(model), dynamic_shapes=model.dynamic(torch))
