# RUN: %python %s | filecheck %s
# map, scan and while_loop exported as control regions.
import texport as torch


class M(torch.nn.Module):
    def forward(self, xs, y, it):
        mapped = torch.control_flow.map(lambda x, y: x * 2 + y, xs, y)
        carry, ys = torch.scan(lambda c, x: (c + x, 2 * (c + x)), torch.zeros(3), xs)
        n, w = torch.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, v * 2), (it, y))
        return mapped, carry, ys, n, w


args = (torch.arange(6.0).view(2, 3), torch.ones(3), torch.tensor(0))
ep = torch.export.export(M(), args)
print(ep.graph_module.print_readable(print_output=False))
for got, want in zip(ep.module()(*args), M()(*args)):
    print(got.tolist(), got.tolist() == want.tolist())

# CHECK: map_impl = torch.ops.higher_order.map_impl(body_graph_0, [xs, y])
# CHECK: scan = torch.ops.higher_order.scan(scan_combine_graph_0, [zeros, xs])
# CHECK: while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, [it, y])
# CHECK: class body_graph_0(torch.nn.Module):
# CHECK: class scan_combine_graph_0(torch.nn.Module):
# CHECK: class while_loop_cond_graph_0(torch.nn.Module):
# CHECK: lt: "b8[]" = torch.ops.aten.lt.Scalar
# CHECK: {{\[\[}}1.0, 3.0, 5.0], [7.0, 9.0, 11.0]] True
# CHECK: [3.0, 5.0, 7.0] True
# CHECK: {{\[\[}}0.0, 2.0, 4.0], [6.0, 10.0, 14.0]] True
# CHECK: 5 True
# CHECK: [32.0, 32.0, 32.0] True
