# RUN: %python %s | filecheck %s
# The seed's model at training level, train mode: torch's op sequence and signature.
import texport as torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 3, 1, 1)
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        return (x,)


ep = torch.export.export(M(), (torch.randn(1, 1, 3, 3),))
print(ep)
print(ep.mlir())
sig = ep.graph_signature
print("parameters", sig.parameters)
print("buffers", sig.buffers)
print("user_inputs", sig.user_inputs, "user_outputs", sig.user_outputs)
print("buffers_to_mutate", sig.buffers_to_mutate)
print("range_constraints", ep.range_constraints)

# CHECK: ExportedProgram:
# CHECK-NEXT:     class GraphModule(torch.nn.Module):
# CHECK-NEXT:         def forward(self, p_conv_weight: "f32[3, 1, 1, 1]", p_conv_bias: "f32[3]", p_bn_weight: "f32[3]", p_bn_bias: "f32[3]", b_bn_running_mean: "f32[3]", b_bn_running_var: "f32[3]", b_bn_num_batches_tracked: "i64[]", x: "f32[1, 1, 3, 3]"):
# CHECK-NEXT:             # code: return self._conv_forward(input, self.weight, self.bias)
# CHECK-NEXT:             conv2d: "f32[1, 3, 3, 3]" = torch.ops.aten.conv2d.default(x, p_conv_weight, p_conv_bias);  x = p_conv_weight = p_conv_bias = None
# CHECK-NEXT:             # code: self.num_batches_tracked.add_(1)
# CHECK-NEXT:             add_: "i64[]" = torch.ops.aten.add_.Tensor(b_bn_num_batches_tracked, 1);  b_bn_num_batches_tracked = None
# CHECK-NEXT:             # code: return F.batch_norm(
# CHECK-NEXT:             batch_norm: "f32[1, 3, 3, 3]" = torch.ops.aten.batch_norm.default(conv2d, p_bn_weight, p_bn_bias, b_bn_running_mean, b_bn_running_var, True, 0.1, 1e-05, False);  conv2d = p_bn_weight = p_bn_bias = b_bn_running_mean = b_bn_running_var = None
# CHECK-NEXT:             return (batch_norm,)
# CHECK: Graph signature:
# CHECK-NEXT:     # inputs
# CHECK-NEXT:     p_conv_weight: PARAMETER target='conv.weight'
# CHECK-NEXT:     p_conv_bias: PARAMETER target='conv.bias'
# CHECK-NEXT:     p_bn_weight: PARAMETER target='bn.weight'
# CHECK-NEXT:     p_bn_bias: PARAMETER target='bn.bias'
# CHECK-NEXT:     b_bn_running_mean: BUFFER target='bn.running_mean' persistent=True
# CHECK-NEXT:     b_bn_running_var: BUFFER target='bn.running_var' persistent=True
# CHECK-NEXT:     b_bn_num_batches_tracked: BUFFER target='bn.num_batches_tracked' persistent=True
# CHECK-NEXT:     x: USER_INPUT
# CHECK-EMPTY:
# CHECK-NEXT:     # outputs
# CHECK-NEXT:     batch_norm: USER_OUTPUT
# CHECK: Range constraints: {}

# The IR is a complete program: signature on the arguments and results.
# CHECK: func.func @forward(%p_conv_weight: !tx.tensor<[3, 1, 1, 1], f32> {tx.input = "PARAMETER", tx.target = "conv.weight"}
# CHECK-SAME: %b_bn_num_batches_tracked: !tx.tensor<[], i64> {tx.input = "BUFFER", tx.target = "bn.num_batches_tracked", tx.persistent = true}
# CHECK-SAME: %x: !tx.tensor<[1, 1, 3, 3], f32> {tx.input = "USER_INPUT", tx.path = "x"}
# CHECK-SAME: -> (!tx.tensor<[1, 3, 3, 3], f32> {tx.output = "USER_OUTPUT"})
# CHECK-NEXT: %conv2d = training.conv2d(%x, %p_conv_weight, %p_conv_bias) : !tx.tensor<[1, 3, 3, 3], f32>
# CHECK-NEXT: %add_ = training.add_.Tensor(%b_bn_num_batches_tracked, 1) : !tx.tensor<[], i64>
# CHECK-NEXT: %batch_norm = training.batch_norm(%conv2d, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, %b_bn_running_var, true, 0.1, 1.0e-05, false) : !tx.tensor<[1, 3, 3, 3], f32>
# CHECK-NEXT: func.return %batch_norm

# CHECK: parameters ('conv.weight', 'conv.bias', 'bn.weight', 'bn.bias')
# CHECK: buffers ('bn.running_mean', 'bn.running_var', 'bn.num_batches_tracked')
# CHECK: user_inputs ('x',) user_outputs ('batch_norm',)
# CHECK: buffers_to_mutate {}
# CHECK: range_constraints {}
