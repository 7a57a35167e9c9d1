# The README's main job: `texport demo` (and `texport export` with no file) exports
# the bundled ConvBN, prints its IR at every level that exists and checks each
# level's ep.module() against eager execution (outputs and buffer updates).
# RUN: texport demo | filecheck %s
# RUN: texport export | filecheck %s

# CHECK: texport demo: ConvBN from {{.*}}examples/models.py in train mode, example input x: f32[1, 1, 3, 3]
# CHECK: == training IR ==
# CHECK: %add_ = training.add_.Tensor(%b_bn_num_batches_tracked, 1)
# CHECK: training.batch_norm
# CHECK: == ep.module() at each level vs eager, on the example input ==
# CHECK-NEXT: training    1 output(s) and 3 updated buffer(s) agree with eager (max |difference| 0)
# CHECK: all agree with eager
# CHECK-NOT: DISAGREE
