# The demo shows and checks all three levels (demo_degrades.py: without lowering).
# RUN: texport demo | filecheck %s

# CHECK: == training IR ==
# CHECK: == functional IR ==
# CHECK-NOT: training.
# CHECK: == core IR ==
# CHECK: core.convolution
# CHECK: == ep.module() at each level vs eager, on the example input ==
# CHECK-NEXT: training    {{.*}} agree with eager
# CHECK-NEXT: functional  {{.*}} agree with eager
# CHECK-NEXT: core        {{.*}} agree with eager
# CHECK: training, functional, core: all agree with eager
