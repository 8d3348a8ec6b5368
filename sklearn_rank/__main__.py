"""``python -m sklearn_rank``: the ``sklearn-rank`` command (see ``sklearn_rank._cli``).

With no arguments it runs the main job, the model-selection demo.
"""

from ._cli import main

raise SystemExit(main())
