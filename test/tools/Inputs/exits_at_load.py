# A model file that exits while it is being loaded.
import sys

sys.exit(3)
