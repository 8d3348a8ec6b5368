"""``python -m sklearn_rank`` runs the main job (see ``sklearn_rank._cli``)."""

from ._cli import main

raise SystemExit(main())
