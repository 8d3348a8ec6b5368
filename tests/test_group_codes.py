"""encode_groups against a plain dict-and-sorted definition, and its id rules.

Every kind runs twice: with pandas imported (``pandas.factorize``) and as if it
were not (the numpy and ``dict`` fallback), so both paths are held to one result.
"""

import datetime
import decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sklearn_rank
from sklearn_rank._engine import group_codes as _group_codes
from sklearn_rank._engine.group_codes import encode_groups


@pytest.fixture(params=["pandas", "numpy-only"], autouse=True)
def path(request, monkeypatch):
    if request.param == "numpy-only":
        monkeypatch.setattr(_group_codes, "_loaded_pandas", lambda: None)
    return request.param


def plain_encoding(values):
    """Codes and ids by definition: the distinct ids sorted, each row's position."""
    ids = sorted(set(values))
    position = {v: i for i, v in enumerate(ids)}
    return [position[v] for v in values], ids


def check(groups, values):
    """``groups`` (any container) encodes like the Python list ``values``."""
    codes, ids = encode_groups(groups, len(values), "f")
    expected_codes, expected_ids = plain_encoding(values)
    assert codes.dtype == np.intp
    assert codes.tolist() == expected_codes
    assert list(ids) == expected_ids
    assert [ids[c] for c in codes] == values


RNG = np.random.default_rng(0)
INTS = RNG.integers(-40, 40, size=500)
WORDS = np.array([f"q{v}" for v in INTS], dtype=object)


@pytest.mark.parametrize(
    "make",
    [
        lambda: INTS,
        lambda: INTS * 10**15,  # too wide for the lookup table
        lambda: INTS.astype(np.int8) * 3,  # spans more than int8 can hold
        lambda: np.array([-128, 127, 0, 127], dtype=np.int8),
        lambda: (INTS + 40).astype(np.uint8),
        lambda: INTS.astype(float) / 7,
        lambda: np.array([0.0, -0.0, 1e300, -1e-300, 0.0]),
        lambda: (INTS * 1e10).astype(np.float32),
        lambda: np.array([1, 2**63 + 5, 3, 2**64 - 1] * 3, dtype=np.uint64),
        lambda: INTS % 2 == 0,
        lambda: INTS.tolist(),
        lambda: tuple(INTS.tolist()),
        lambda: WORDS,
        lambda: WORDS.tolist(),
        lambda: WORDS.astype(str),
        lambda: WORDS.astype(bytes),
        lambda: np.array([w.encode() for w in WORDS], dtype=object),
        lambda: pd.Series(WORDS),
        lambda: pd.Series(WORDS.tolist(), dtype="string"),
        lambda: pd.Series(WORDS.tolist(), dtype="str"),
        lambda: pd.Index(WORDS.tolist()),
        lambda: pd.Series(WORDS).astype("category"),
        lambda: pd.Categorical(WORDS.tolist()),
        lambda: np.array(["b", "", "ab", "é", "a" * 30, ""], dtype=str),
        lambda: np.array([datetime.date(2020, 1, 1 + v % 28) for v in INTS[:50]]),
        lambda: (np.datetime64("2020-01-01") + INTS).astype("datetime64[D]"),
        lambda: pd.Series(pd.to_datetime(INTS, unit="D")),
        lambda: [decimal.Decimal(int(v)) / 4 for v in INTS[:50]],
    ],
    ids=[
        "ints",
        "wide-ints",
        "int8-span",
        "int8-extremes",
        "uint8",
        "floats",
        "signed-zeros",
        "float32",
        "wide-uint64",
        "bools",
        "int-list",
        "int-tuple",
        "str-objects",
        "str-list",
        "numpy-U",
        "numpy-S",
        "bytes-objects",
        "series-object",
        "series-string",
        "series-str",
        "index",
        "series-category",
        "categorical",
        "U-edge-cases",
        "dates",
        "datetime64",
        "series-datetime",
        "decimals",
    ],
)
def test_every_kind_matches_the_plain_definition(make):
    groups = make()
    values = (
        list(groups.categories[groups.codes])
        if isinstance(groups, pd.Categorical)
        else list(np.asarray(groups).tolist())
        if not isinstance(groups, (list, tuple))
        else list(groups)
    )
    if isinstance(groups, pd.Series) and groups.dtype == "category":
        values = list(groups.astype(object))
    check(groups, values)


@pytest.mark.parametrize(
    "groups",
    [
        [1, "1", 1, "1"],
        np.array([1, "1", 1, "1"], dtype=object),
        [True, 1, 1, True],
        np.array([True, 1, 1, True], dtype=object),
        np.array([1.0, True], dtype=object),
        ["a", b"a"],
        pd.Series([1, "1", 1, "1"]),
        [datetime.datetime(2020, 1, 1), "2020-01-01"],
    ],
    ids=[
        "list-int-str",
        "object-int-str",
        "list-bool-int",
        "object-bool-int",
        "object-float-bool",
        "list-str-bytes",
        "series-int-str",
        "list-datetime-str",
    ],
)
def test_mixed_id_types_are_rejected(groups):
    with pytest.raises(TypeError, match=r"groups in f mixes id types .*str\(g\)"):
        encode_groups(groups, len(groups), "f")


MISSING = {
    "None": None,
    "nan": float("nan"),
    "np-nan": np.nan,
    "pd-NaT": pd.NaT,
    "np-NaT": np.datetime64("NaT"),
    "pd-NA": pd.NA,
    "Decimal-NaN": decimal.Decimal("NaN"),
    "Decimal-sNaN": decimal.Decimal("sNaN"),
}


@pytest.mark.parametrize("missing", MISSING.values(), ids=MISSING.keys())
@pytest.mark.parametrize("others", [["a", "b"], [1, 2]], ids=["str", "int"])
@pytest.mark.parametrize(
    "container",
    [list, lambda v: np.array(v, dtype=object), lambda v: pd.Series(v, dtype=object)],
    ids=["list", "object", "series"],
)
def test_missing_ids_are_rejected(missing, others, container):
    groups = container([*others, missing, others[0]])
    with pytest.raises(ValueError, match=r"groups in f contains missing values"):
        encode_groups(groups, 4, "f")


@pytest.mark.parametrize(
    "groups",
    [
        np.array(["2020-01-01", "NaT"], dtype="datetime64[D]"),
        np.array([1, "NaT"], dtype="timedelta64[s]"),
        pd.Series(["a", None], dtype="string"),
        pd.Series([1, None], dtype="Int64"),
        pd.Series(["a", None]),
        pd.Categorical(["a", None]),
        np.array([1.0, np.nan]),
    ],
    ids=["datetime64", "timedelta64", "series-string", "Int64", "str", "cat", "f8"],
)
def test_missing_ids_of_typed_columns_are_rejected(groups):
    with pytest.raises(ValueError, match=r"groups in f contains missing values"):
        encode_groups(groups, 2, "f")


@pytest.mark.parametrize(
    "container",
    [list, lambda v: np.array(v, dtype=object), pd.Series],
    ids=["list", "object", "series"],
)
def test_trailing_nul_keeps_ids_apart(container):
    values = ["a", "a\x00", "a", "\x00", ""]
    check(container(values), values)


@pytest.mark.parametrize("low", [2**63 - 2, 2**64 - 40])
@pytest.mark.parametrize("spread", [1, 2**50], ids=["table", "sort"])
def test_uint64_ids_above_int64(low, spread):
    values = [low + spread * v for v in (3, 0, 1, 3)]
    values = [min(v, 2**64 - 1) for v in values]
    check(np.array(values, dtype=np.uint64), values)


def test_uint64_ids_work_end_to_end():
    groups = np.array([2**64 - 1, 2**63, 2**64 - 1, 2**63], dtype=np.uint64)
    y, s = [1, 0, 0, 1], [0.9, 0.3, 0.8, 0.2]
    got = sklearn_rank.evaluate_per_group(y, s, groups=groups, metrics=["mrr"])
    assert got.group_ids.tolist() == [2**63, 2**64 - 1]
    assert got.values["mrr"].tolist() == [0.5, 1.0]


def test_a_hash_collision_falls_back_to_the_exact_sort(monkeypatch):
    # Every row put in one group, as a total collision would: the row check
    # must see it and give the right encoding anyway.
    def collide(keys):
        return np.zeros(keys.size, dtype=np.intp), np.zeros(1, dtype=np.intp)

    monkeypatch.setattr(_group_codes, "_factorize_keys", collide)
    values = ["b", "a", "b", "c"]
    check(np.array(values), values)


@pytest.mark.parametrize("seed", range(3))
def test_table_factorize_separates_keys_that_share_a_slot(seed):
    # Keys below 2**40 all fall in slot 0 of a 1024-slot table.
    keys = np.random.default_rng(seed).integers(0, 40, size=300).astype(np.uint64)
    keys[::3] *= np.uint64(2**60)
    codes, n_codes = _group_codes._table_factorize(keys)
    assert n_codes == len(set(keys.tolist()))
    assert sorted(set(codes.tolist())) == list(range(n_codes))
    same_key = keys[:, None] == keys[None, :]
    np.testing.assert_array_equal(codes[:, None] == codes[None, :], same_key)


def test_unhashable_ids_get_a_clear_error():
    groups = np.empty(2, dtype=object)
    groups[0], groups[1] = [1], [2]
    with pytest.raises(TypeError, match=r"groups in f holds ids that are not hashable"):
        encode_groups(groups, 2, "f")


ID = st.one_of(
    st.integers(-3, 3),
    st.floats(-2, 2, allow_nan=False),
    st.booleans(),
    st.text(alphabet="ab\x00é", max_size=3),
    st.binary(max_size=2),
)


def kind(value):
    if isinstance(value, bool):
        return "bool"
    return "number" if isinstance(value, (int, float)) else type(value)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(values=st.lists(ID, min_size=1, max_size=12), as_array=st.booleans())
def test_mixed_lists_encode_or_are_rejected(values, as_array):
    groups = np.array(values, dtype=object) if as_array else values
    if len({kind(v) for v in values}) > 1:
        with pytest.raises(TypeError, match="mixes id types"):
            encode_groups(groups, len(values), "f")
    else:
        check(groups, values)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(values=st.lists(st.text(alphabet="ab\x00é", max_size=4), min_size=1))
def test_fixed_width_strings_encode_like_their_values(values):
    for arr in (np.array(values), np.array([v.encode() for v in values])):
        check(arr, arr.tolist())


# Runs of equal neighbours (rows grouped by id): only each run's first row is
# factorized. Every case below must give what encoding each row does.


def runs_of(values, rng, mean=5):
    """``values`` repeated in runs of random lengths (at least one row each)."""
    return [v for v in values for _ in range(1 + rng.poisson(mean - 1))]


RUN_CONTAINERS = {
    "object": lambda v: np.array(v, dtype=object),
    "list": list,
    "numpy-U": lambda v: np.array(v, dtype=str),
    "numpy-S": lambda v: np.array([x.encode() for x in v]),
    "series-object": lambda v: pd.Series(v, dtype=object),
    "series-str": lambda v: pd.Series(v, dtype="str"),
    "series-string": lambda v: pd.Series(v, dtype="string"),
    "series-string-pyarrow": lambda v: pd.Series(v, dtype="string[pyarrow]"),
    "index": pd.Index,
}


def every_row(monkeypatch, groups, n):
    """The encoding with the run path switched off."""
    with monkeypatch.context() as m:
        m.setattr(_group_codes, "_run_starts", lambda values: None)
        return encode_groups(groups, n, "f")


@pytest.mark.parametrize("container", RUN_CONTAINERS.values(), ids=RUN_CONTAINERS)
@pytest.mark.parametrize("seed", range(3))
def test_ids_in_runs_encode_like_every_row(container, seed, monkeypatch):
    rng = np.random.default_rng(seed)
    # Random ids, some of them in several runs apart (not contiguous), some
    # sharing prefixes and trailing NULs, a few runs of one row.
    pool = [f"q{rng.integers(0, 300)}" for _ in range(200)] + ["", "a\x00b", "é"]
    heads = [pool[i] for i in rng.integers(0, len(pool), size=900)]
    values = runs_of(heads, rng)
    assert len(values) > 2 * _group_codes._RUN_SAMPLE
    groups = container(values)
    values = np.asarray(groups).tolist()  # bytes for numpy-S
    check(groups, values)
    codes, ids = encode_groups(groups, len(values), "f")
    plain_codes, plain_ids = every_row(monkeypatch, groups, len(values))
    np.testing.assert_array_equal(codes, plain_codes)
    assert list(ids) == list(plain_ids)
    unique_ids, unique_codes = np.unique(np.array(values), return_inverse=True)
    np.testing.assert_array_equal(codes, unique_codes)
    assert list(ids) == unique_ids.tolist()


@pytest.mark.parametrize("container", RUN_CONTAINERS)
def test_ids_in_runs_factorize_only_the_first_row_of_each_run(container, monkeypatch):
    values = runs_of([f"q{i % 50}" for i in range(400)], np.random.default_rng(1))
    seen = []
    for name in ("_factorize_objects", "_factorize_keys", "_sorted_unique"):
        real = getattr(_group_codes, name)

        def spy(rows, *args, real=real):
            seen.append(len(rows))
            return real(rows, *args)

        monkeypatch.setattr(_group_codes, name, spy)
    groups = RUN_CONTAINERS[container](values)
    check(groups, np.asarray(groups).tolist())
    assert seen and max(seen) == 400


def test_ids_not_in_runs_factorize_every_row(monkeypatch):
    values = [f"q{i}" for i in np.random.default_rng(2).integers(0, 50, size=3000)]
    assert _group_codes._run_starts(np.array(values, dtype=object)) is None
    assert _group_codes._run_starts(np.array(values[:100] * 3, dtype=object)) is None
    check(np.array(values, dtype=object), values)


@pytest.mark.parametrize("missing", MISSING.values(), ids=MISSING.keys())
@pytest.mark.parametrize(
    "container",
    [lambda v: np.array(v, dtype=object), lambda v: pd.Series(v, dtype=object)],
    ids=["object", "series"],
)
def test_missing_ids_in_runs_are_rejected(missing, container):
    values = runs_of([f"q{i % 30}" for i in range(600)], np.random.default_rng(3))
    for at in (0, 700, len(values) - 1):
        groups = container(values[:at] + [missing] * 3 + values[at:])
        with pytest.raises(ValueError, match=r"groups in f contains missing values"):
            encode_groups(groups, len(groups), "f")


@pytest.mark.parametrize(
    "other", [1, True, b"q1", 1.5], ids=["int", "bool", "bytes", "float"]
)
def test_mixed_id_types_in_runs_are_rejected(other):
    values = runs_of([f"q{i % 30}" for i in range(600)], np.random.default_rng(4))
    groups = np.array(values[:900] + [other] * 4 + values[900:], dtype=object)
    with pytest.raises(TypeError, match="mixes id types"):
        encode_groups(groups, len(groups), "f")


def test_bools_in_a_run_of_equal_ints_are_rejected():
    # True == 1, so a run does not split between them: the type check must still
    # look at every row.
    values = [v for i in range(400) for v in [i % 7] * 5]
    values[1021] = True
    assert values[1020] == values[1022] == 1
    with pytest.raises(TypeError, match="mixes id types"):
        encode_groups(np.array(values, dtype=object), len(values), "f")


def test_numbers_in_runs_encode_like_every_row(monkeypatch):
    # 1 and 1.0 are one id, in runs or not.
    rng = np.random.default_rng(5)
    values = runs_of([int(v) for v in rng.integers(0, 40, size=500)], rng)
    values = [float(v) if i % 3 else v for i, v in enumerate(values)]
    groups = np.array(values, dtype=object)
    codes, ids = encode_groups(groups, len(values), "f")
    plain_codes, plain_ids = every_row(monkeypatch, groups, len(values))
    np.testing.assert_array_equal(codes, plain_codes)
    assert ids.tolist() == plain_ids.tolist()
    assert [type(v) for v in ids] == [type(v) for v in plain_ids]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    heads=st.lists(st.text(alphabet="ab\x00é", max_size=3), min_size=1, max_size=30),
    lengths=st.lists(st.integers(1, 6), min_size=30, max_size=30),
    as_array=st.sampled_from(["object", "numpy-U", "series-object"]),
)
def test_runs_of_any_strings_encode_like_their_values(
    heads, lengths, as_array, monkeypatch
):
    monkeypatch.setattr(_group_codes, "_RUN_SAMPLE", 4)
    monkeypatch.setattr(_group_codes, "_RUN_ROWS", 1)
    values = [h for h, k in zip(heads, lengths, strict=False) for _ in range(k)]
    groups = RUN_CONTAINERS[as_array](values)
    check(groups, np.asarray(groups).tolist())


def test_inputs_in_runs_are_not_modified():
    values = runs_of([f"q{i % 30}" for i in range(600)], np.random.default_rng(6))
    for groups in (np.array(values, dtype=object), np.array(values, dtype=str)):
        before = groups.copy()
        encode_groups(groups, len(groups), "f")
        np.testing.assert_array_equal(groups, before)


def test_string_ids_in_runs_evaluate_like_integer_ids():
    rng = np.random.default_rng(7)
    ints = np.repeat(rng.permutation(300), rng.integers(1, 12, size=300))
    y = rng.integers(0, 3, size=ints.size)
    s = rng.standard_normal(ints.size)
    text = np.array([f"query-{i:04d}" for i in ints], dtype=object)
    want = sklearn_rank.evaluate_per_group(y, s, groups=ints, metrics=["ndcg", "map"])
    for groups in (text, text.astype(str), pd.Series(text)):
        got = sklearn_rank.evaluate_per_group(
            y, s, groups=groups, metrics=["ndcg", "map"]
        )
        assert got.group_ids.tolist() == [f"query-{i:04d}" for i in want.group_ids]
        for m in ("ndcg", "map"):
            np.testing.assert_array_equal(got.values[m], want.values[m])


def test_dense_integer_codes_are_kept_read_only():
    """Codes that already are 0..G-1 (the command line's joined queries) are
    used as they are: the same codes as the general path, no copy, and the
    input can be neither modified through them nor changed."""
    from sklearn_rank._engine.group_codes import encode_groups

    rng = np.random.default_rng(0)
    groups = rng.permutation(np.repeat(np.arange(50, dtype=np.intp), 3))
    before = groups.copy()
    codes, ids = encode_groups(groups, groups.size, "evaluate")
    np.testing.assert_array_equal(codes, groups)
    np.testing.assert_array_equal(ids, np.arange(50))
    assert not codes.flags.writeable
    np.testing.assert_array_equal(groups, before)
    gappy = np.array([0, 2, 2, 5], dtype=np.intp)  # not dense: renumbered
    codes, ids = encode_groups(gappy, gappy.size, "evaluate")
    assert codes.tolist() == [0, 1, 1, 2] and ids.tolist() == [0, 2, 5]
