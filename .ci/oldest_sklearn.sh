#!/usr/bin/env bash
# Second CI environment: the scikit-learn integration tests on the oldest supported
# scikit-learn (1.4.2; 1.4.0 breaks ColumnTransformer under routing, 1.3 does not
# route to scorers), with the oldest numpy the engine supports (2.1: the array API
# names it calls), the scipy/pandas of that time and matplotlib 3.8 (the displays'
# layout test). The package is
# installed as a regular (non-editable) install and the tests import that copy, so
# a missing package-data file fails here too. Called by .ci/run; runnable alone:
#   bash .ci/oldest_sklearn.sh
# The venv lives outside the clone and is reused when its pins are unchanged;
# `--setup-only` creates it and stops (.ci/run does that while the suite runs).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

pins=(
    "scikit-learn==1.4.2"
    "numpy==2.1.3"
    "scipy==1.13.1"
    "pandas==2.2.3"
    "matplotlib==3.8.4"  # the oldest the plot extra allows: the layout test runs on it
    "pyparsing<3.2"  # 3.2 deprecates names matplotlib 3.8 calls (warnings are errors)
    "lightgbm>=4.0"
    "pytest>=7.4"
    "pytest-xdist>=3.3"  # two workers: the documentation build leaves a core idle
    "hypothesis>=6.80"
)
venv=${SKLEARN_RANK_OLDEST_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/sklearn-rank/venv-sklearn-1.4.2}
stamp="$venv/.pins"
start=$SECONDS

if [[ ! -x "$venv/bin/python" ]] || [[ "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]]; then
    echo "oldest scikit-learn: creating $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet "${pins[@]}"
    echo "${pins[*]}" > "$stamp"
fi
if [[ "${1:-}" == "--setup-only" ]]; then
    echo "oldest scikit-learn environment: ready in $((SECONDS - start))s"
    exit 0
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Always reinstall the package itself: the code under test is this clone's.
if ! "$venv/bin/python" -m pip install --quiet --no-deps --force-reinstall "$repo" \
    > "$scratch/pip.log" 2>&1; then
    cat "$scratch/pip.log"
    exit 1
fi

# Run from a scratch directory so `import sklearn_rank` finds the installed copy,
# not the source tree; -c keeps the repository's pytest settings.
# (without the documentation's build output, which .ci/run writes meanwhile)
tar -C "$repo" --exclude=docs/_build --exclude=docs/auto_examples \
    --exclude=docs/api/generated --exclude=__pycache__ -cf - tests docs \
    | tar -C "$scratch" -xf -
cd "$scratch"
"$venv/bin/python" -c "import sklearn, sklearn_rank; print('oldest scikit-learn:', \
sklearn.__version__, '| sklearn_rank from', sklearn_rank.__file__)"
"$venv/bin/python" -m pytest -c "$repo/pyproject.toml" --rootdir "$scratch" \
    -p no:cacheprovider -q -n "${SKLEARN_RANK_OLDEST_WORKERS:-2}" \
    tests/test_scorer.py tests/test_model_selection.py tests/test_rankers.py \
    tests/test_datasets.py tests/test_cli.py tests/test_docs_sklearn.py \
    tests/test_plot_layout.py tests/test_plot_defects.py
echo "oldest scikit-learn environment: done in $((SECONDS - start))s"
