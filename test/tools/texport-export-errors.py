# `texport export` on bad models and bad options: one paragraph, never a traceback; an
# error in the model's own code is the model's, shown at its frame; exit status 1 for
# bad input, 2 for a bad command line, 130 when interrupted.
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/model_errors.py --factory recurses | filecheck %s --check-prefixes=CLEAN,RECURSES
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/model_errors.py --factory divides | filecheck %s --check-prefixes=CLEAN,DIVIDES
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/model_errors.py --factory fails_to_make | filecheck %s --check-prefixes=CLEAN,FACTORY
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/model_errors.py --factory interrupted | filecheck %s --check-prefixes=CLEAN,INTERRUPTED
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/model_errors.py --factory exits | filecheck %s --check-prefixes=CLEAN,EXITS
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/model_errors.py --factory branches | filecheck %s --check-prefixes=CLEAN,BRANCHES
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/exits_at_load.py | filecheck %s --check-prefixes=CLEAN,EXITLOAD
# RUN: %python -c "open('%t.syntax.py', 'w').write('import texport\n\ndef make_m(:\n    pass\n')"
# RUN: %python %S/Inputs/exit_status.py texport export %t.syntax.py | filecheck %s --check-prefixes=CLEAN,SYNTAX
# --debug (before or after the command) and TEXPORT_DEBUG=1 show Python's traceback.
# RUN: %python %S/Inputs/exit_status.py texport --debug export %S/Inputs/model_errors.py --factory divides | filecheck %s --check-prefix=DEBUG
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/model_errors.py --factory divides --debug | filecheck %s --check-prefix=DEBUG
# RUN: env TEXPORT_DEBUG=1 %python %S/Inputs/exit_status.py texport export %S/Inputs/model_errors.py --factory divides | filecheck %s --check-prefix=DEBUG
# --dynamic NAME=[ARG.]AXIS[:MIN..MAX]: a spec must give a dynamic dim a range, one per name.
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=0:5..2 | filecheck %s --check-prefixes=CLEAN,EMPTY
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=0:1..1 | filecheck %s --check-prefixes=CLEAN,ONESIZE
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=0:0..1 | filecheck %s --check-prefixes=CLEAN,BELOW2
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=0:2..3 | filecheck %s --check-prefixes=CLEAN,OUTSIDE
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=x.0:1..64 --dynamic batch=y.0:2..8 | filecheck %s --check-prefixes=CLEAN,TWORANGES
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=0 --dynamic rows=x.0 | filecheck %s --check-prefixes=CLEAN,TWOSPECS
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=1 | filecheck %s --check-prefixes=CLEAN,SIZES
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=0:1.. --dynamic batch=0 | filecheck %s --check-prefixes=CLEAN,SAMEDIM
# RUN: %python %S/Inputs/exit_status.py texport export %S/Inputs/two_inputs.py --dynamic batch=0:1..1 --dynamic ¹=0 | filecheck %s --check-prefixes=CLEAN,SYNTAX2
# A name given twice with its range once is one Dim on both dims.
# RUN: texport export %S/Inputs/two_inputs.py --dynamic batch=x.0:2..64 --dynamic batch=y.0 | filecheck %s --check-prefix=SHARED

# CLEAN-NOT: Traceback
# RECURSES: texport: error: error in the model while exporting it (running its forward): RecursionError: maximum recursion depth exceeded{{.*}} (the model's code recursed without end)
# RECURSES-NEXT: File "{{.*}}model_errors.py", line 8, in down
# RECURSES-NEXT: return down(x + 1)
# RECURSES-NEXT: (texport's own frames are left out: --debug or TEXPORT_DEBUG=1 shows them all)
# RECURSES-NEXT: exit status 1
# DIVIDES: texport: error: error in the model while exporting it (running its forward): ZeroDivisionError: division by zero
# DIVIDES-NEXT: File "{{.*}}model_errors.py", line 20, in forward
# DIVIDES-NEXT: return x * (1 / self.count)
# DIVIDES: exit status 1
# FACTORY: texport: error: error in the model while making the model and its example inputs with make_fails_to_make(): TypeError: expected a Python scalar, found list
# FACTORY-NEXT: File "{{.*}}model_errors.py", line 50, in make_fails_to_make
# INTERRUPTED: texport: error: interrupted (KeyboardInterrupt) in the model while exporting it (running its forward)
# INTERRUPTED-NEXT: File "{{.*}}model_errors.py", line 25, in forward
# INTERRUPTED-NEXT: raise KeyboardInterrupt
# INTERRUPTED-NEXT: exit status 130
# EXITS: texport: error: the model called sys.exit(3) while exporting it (running its forward): texport needs it to return
# EXITS-NEXT: File "{{.*}}model_errors.py", line 30, in forward
# EXITS-NEXT: sys.exit(3)
# EXITS-NEXT: exit status 1
# BRANCHES: texport: error: Could not guard on data-dependent expression
# BRANCHES: File "{{.*}}model_errors.py", line 55, in forward
# BRANCHES-NEXT: if x.sum() > 0:
# BRANCHES-NOT: File "
# BRANCHES: exit status 1
# EXITLOAD: texport: error: the model called sys.exit(3) while loading {{.*}}exits_at_load.py: texport needs it to return
# EXITLOAD-NEXT: File "{{.*}}exits_at_load.py", line 4, in <module>
# EXITLOAD-NEXT: sys.exit(3)
# EXITLOAD-NEXT: exit status 1
# SYNTAX: texport: error: error in the model while loading {{.*}}syntax.py: SyntaxError: invalid syntax
# SYNTAX-NEXT: File "{{.*}}syntax.py", line 3
# SYNTAX-NEXT: {{^    def make_m\(:$}}
# SYNTAX-NEXT: {{^               \^$}}
# SYNTAX-NEXT: exit status 1
# DEBUG: Traceback (most recent call last):
# DEBUG: ZeroDivisionError: division by zero
# DEBUG: exit status 1
# EMPTY: texport: error: --dynamic 'batch=0:5..2': the range 5..2 is empty (min 5 > max 2); torch.export's Dim refuses it: Cannot create Dim with inconsistent min=5, max=2
# EMPTY-NEXT: exit status 2
# ONESIZE: texport: error: --dynamic 'batch=0:1..1': the range 1..1 holds one size, a constant: leave the dim out of --dynamic to export it static (torch.export's Dim refuses it: Cannot create Dim with inconsistent min=1, max=1)
# ONESIZE-NEXT: exit status 2
# BELOW2: texport: error: --dynamic 'batch=0:0..1': no dynamic size is in 0..1: torch.export specializes sizes 0 and 1 to constants, so a dynamic dim's sizes start at 2 (give a max of 2 or more)
# BELOW2-NEXT: exit status 2
# OUTSIDE: texport: error: --dynamic 'batch=0:2..3': dim 0 of x is 4 in the example inputs, outside batch's range [2, 3]
# OUTSIDE-NEXT: exit status 1
# TWORANGES: texport: error: --dynamic 'batch=x.0:1..64' and --dynamic 'batch=y.0:2..8' give batch two ranges, 1..64 and 2..8: give its range once, or the same in both (torch.export refuses two different definitions of one Dim too)
# TWORANGES-NEXT: exit status 2
# TWOSPECS: texport: error: --dynamic 'batch=0' and --dynamic 'rows=x.0' both make dim 0 of x dynamic: keep one
# TWOSPECS-NEXT: exit status 2
# SIZES: texport: error: --dynamic 'batch=1' makes dim 1 of x and dim 1 of y one size, batch, but the example inputs have 3 and 5 there
# SIZES-NEXT: exit status 1
# SAMEDIM: texport: error: --dynamic 'batch=0:1..' and --dynamic 'batch=0' both make dim 0 of x dynamic: keep one
# SYNTAX2: texport: error: --dynamic 'batch=0:1..1': the range 1..1 holds one size
# SHARED: %x: !tx.tensor<[[[BATCH:s[0-9]+]], 3], f32>
# SHARED-SAME: %y: !tx.tensor<[[[BATCH]], 5], f32>
# SHARED-SAME: tx.range_constraints = {[[BATCH]] = "VR[2, 64]"}
