# RUN: %python %s | filecheck %s
# The seed's run_decompositions snippets (behaviour reference §1, §2): the
# inference IR, the core ATen IR and a custom table, as torch prints them.
import texport as torch
from texport.lowering import default_decompositions


class M(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 3, 1, 1)
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        return (x,)


ep_for_training = torch.export.export(M(), (torch.randn(1, 1, 3, 3),))
with torch.no_grad():
    ep_for_inference = ep_for_training.run_decompositions(decomp_table={})
print(ep_for_inference.graph_module.print_readable(print_output=False))
print(ep_for_inference.graph_signature)

# CHECK-LABEL: class GraphModule(torch.nn.Module):
# CHECK: conv2d: "f32[1, 3, 3, 3]" = torch.ops.aten.conv2d.default(x, p_conv_weight, p_conv_bias);  x = p_conv_weight = p_conv_bias = None
# CHECK-NEXT: # code: self.num_batches_tracked.add_(1)
# CHECK-NEXT: add: "i64[]" = torch.ops.aten.add.Tensor(b_bn_num_batches_tracked, 1);  b_bn_num_batches_tracked = None
# CHECK-NEXT: # code: return F.batch_norm(
# CHECK-NEXT: _native_batch_norm_legit_functional = torch.ops.aten._native_batch_norm_legit_functional.default(conv2d, p_bn_weight, p_bn_bias, b_bn_running_mean, b_bn_running_var, True, 0.1, 1e-05);  conv2d = p_bn_weight = p_bn_bias = b_bn_running_mean = b_bn_running_var = None
# CHECK-NEXT: getitem: "f32[1, 3, 3, 3]" = _native_batch_norm_legit_functional[0]
# CHECK-NEXT: getitem_3: "f32[3]" = _native_batch_norm_legit_functional[3]
# CHECK-NEXT: getitem_4: "f32[3]" = _native_batch_norm_legit_functional[4];  _native_batch_norm_legit_functional = None
# CHECK-NEXT: return (getitem_3, getitem_4, add, getitem)
# CHECK: # outputs
# CHECK-NEXT: getitem_3: BUFFER_MUTATION target='bn.running_mean'
# CHECK-NEXT: getitem_4: BUFFER_MUTATION target='bn.running_var'
# CHECK-NEXT: add: BUFFER_MUTATION target='bn.num_batches_tracked'
# CHECK-NEXT: getitem: USER_OUTPUT

with torch.no_grad():
    core_aten_ir = ep_for_training.run_decompositions(decomp_table=None)
print(core_aten_ir.graph_module.print_readable(print_output=False))
print(core_aten_ir.mlir())

# CHECK-LABEL: class GraphModule(torch.nn.Module):
# CHECK: convolution: "f32[1, 3, 3, 3]" = torch.ops.aten.convolution.default(x, p_conv_weight, p_conv_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  x = p_conv_weight = p_conv_bias = None
# CHECK: _native_batch_norm_legit_functional = torch.ops.aten._native_batch_norm_legit_functional.default(convolution,
# CHECK: return (getitem_3, getitem_4, add, getitem)
# CHECK-LABEL: builtin.module {
# CHECK-NEXT: func.func @forward
# CHECK-SAME: -> (!tx.tensor<[3], f32> {tx.output = "BUFFER_MUTATION", tx.target = "bn.running_mean"}, !tx.tensor<[3], f32> {tx.output = "BUFFER_MUTATION", tx.target = "bn.running_var"}, !tx.tensor<[], i64> {tx.output = "BUFFER_MUTATION", tx.target = "bn.num_batches_tracked"}, !tx.tensor<[1, 3, 3, 3], f32> {tx.output = "USER_OUTPUT"})
# CHECK-NEXT: %convolution = core.convolution(%x, %p_conv_weight, %p_conv_bias, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : !tx.tensor<[1, 3, 3, 3], f32>
# CHECK-NEXT: %add = core.add.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
# CHECK-NEXT: %getitem, %getitem_1, %getitem_2, %getitem_3, %getitem_4 = functional._native_batch_norm_legit_functional(%convolution, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, true, 0.1, 1.0e-05)
# CHECK-NEXT: func.return %getitem_3, %getitem_4, %add, %getitem

my_decomp_table = default_decompositions()


def my_awesome_custom_conv2d_function(x, weight, bias, stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1):  # noqa: B006 - the seed's snippet, verbatim
    return 2 * torch.ops.aten.convolution(x, weight, bias, stride, padding, dilation, False, [0, 0], groups)


my_decomp_table[torch.ops.aten.conv2d.default] = my_awesome_custom_conv2d_function
my_ep = ep_for_training.run_decompositions(my_decomp_table)
print(my_ep.graph_module.print_readable(print_output=False))

# CHECK-LABEL: class GraphModule(torch.nn.Module):
# CHECK: convolution: "f32[1, 3, 3, 3]" = torch.ops.aten.convolution.default(x, p_conv_weight, p_conv_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  x = p_conv_weight = p_conv_bias = None
# CHECK-NEXT: mul: "f32[1, 3, 3, 3]" = torch.ops.aten.mul.Tensor(convolution, 2);  convolution = None
# CHECK: _native_batch_norm_legit_functional.default(mul, p_bn_weight,
