"""Surviving mutants of ``make mutants`` that cannot change any result, each checked by hand:
mutmut's name -> (the change, why it is equivalent). Read by ``mutation_report.py``.

A survivor that is merely hard to observe is not listed here: it counts against the score and
``LIVE`` says what it is. mutmut renumbers the mutants of a function whose code changes; the
report lists classified names that no longer survive as ``STALE``.
"""

from __future__ import annotations

ZIP_STRICT = ("zip(..., strict=True) -> strict=None / False / absent",
              "the zipped sequences have equal lengths by construction; strict=True only asserts "
              "it")
RESHAPE_FLAT = ("reshape(-1) -> reshape(None) / reshape(-2)",
                "the array is already 1-d (a sparse max/sum along one axis, or a vector); NumPy "
                "treats any negative size as 'infer' and None as 'keep the shape'")
RESHAPE_NEGATIVE = ("reshape(-1, n) -> reshape(-2, n)", "NumPy treats any negative size as 'infer'")
PROJECTION = ("the random projection's weights, seed or sort",
              "the projection only proposes candidate pairs: any pair within atol in the max norm "
              "has a projection gap <= atol * sum(weights) for every non-negative weights, and "
              "every candidate is checked exactly afterwards (_pairs_within); weights, seed and "
              "sort order change which extra candidates are checked, never the groups")
UNDIRECTED = ("connected_components(graph, directed=False) -> directed=None / True / absent",
              "scipy's default connection='weak' makes a directed graph's components those of "
              "the undirected graph")
INDEX_DTYPE = ("np.asarray(indices, dtype=np.intp) -> dtype=None / absent",
               "the lists hold numpy intp indices (int64 here); an empty list gives an empty "
               "float array, which returns before any indexing")
LP_DEFAULTS = ("linprog(bounds=(0, None), method='highs') -> default / 'HIGHS' / format=None",
               "scipy's defaults are bounds=(0, None) and method='highs', the method name is "
               "case-insensitive, and linprog converts any sparse format of A_eq")
LP_FLOAT_INPUT = ("np.asarray(x, dtype=np.float64) -> dtype=None / absent (start, rewards)",
                  "linprog converts its inputs to float64 itself (object arrays of Fractions "
                  "included)")
LP_SHARES = ("row / total -> row * total; uniform 1.0 -> 2.0",
             "_distribution clips and renormalises the shares of each observation")

SHORTCUT_OFF = ("the exact constant-column test of the eta shortcut weakened (never; or only "
                "when every column is constant, all settled at once by a 0-d mask)",
                "the shortcut only ends an induction early; a column it misses is computed in "
                "full to the same exact value (speed, measured by benchmarks/exact_scale.py, not "
                "results)")
BLOCKS = ("how the targets of a layer are cut into blocks (block size, count, bounds as floats "
          "or ints, sequential below H = 3 or not)",
          "each target's column is computed on its own (the induction and the settling test read "
          "only that column), every target lies in exactly one block whatever the bounds "
          "(empty blocks return nothing), so any cut gives the same values; block size changes "
          "speed only")

DTYPE_KIND = ("dtype.kind in 'iu' -> in 'XXiuXX'",
              "a dtype kind is one character, and no dtype has the kind 'X'")
ENCODER_DEFAULT = ("encoder = HadamardNoise() if encoder is None -> never (None passed on)",
                   "EncodedObservations replaces a None encoder by HadamardNoise() itself "
                   "(__post_init__); the caller's default only gives the type checker an Encoder")
FLOAT_ALREADY = ("np.asarray(x, dtype=float) -> dtype=None / absent",
                 "x comes from a float-mode MDP (float_model): already float64 arrays")

BATCHED = "homer.baselines.batched.x"
"""The start of the names of ``homer/baselines/batched.py``'s mutants (``ǁClassǁ`` for methods)."""
FLOAT64_PAIRS = ("np.array(pairs, dtype=np.float64) -> dtype None / absent; np.dtype(np.float64) "
                 "-> np.dtype(None)",
                 "the pairs are (int episodes, float value) tuples, or none, which numpy holds "
                 "as float64 anyway; np.dtype(None) is float64")
MASK_REDUNDANT = ("GAE's mask 0 at the last step -> 1 (always, or never 0), or V(x_{H+1}) = 0 -> 1 "
                  "(mask kept)",
                  "the masked terms are gamma V(x_{H+1}) and the following return and advantage, "
                  "which start at 0 and V(x_{H+1}) is 0: the mask only repeats that the "
                  "episodes end with the rollout")
WHOLE_FLAT_ARRAY = ("PPO's step on slice(network.start, predictor.stop) -> slice(None, stop) / "
                    "slice(start, None) / slice(stop) / None (the whole array)",
                    "the flat arrays hold the network (from 0) then the predictor (to the end): "
                    "every form is all of both parts (None indexes the whole array with one more "
                    "axis, in place as well)")
NO_RND_PREDICTOR_STEP = ("PPO without RND steps the predictor too (step(both) / step(None))",
                         "without RND nothing writes the predictor's gradient, which stays 0: an "
                         "RMSprop step with a zero gradient leaves its parameters and its square "
                         "average (0.99 x 0 + 0.01 x 0) as they were, and the predictor is never "
                         "read")

EXO_KI = "kinematic.exogenous_ki.x"
EXO_CHECK = "kinematic.exogenous_check.x"
EXO_SEARCH = "kinematic.exogenous_search.x"
"""The start of the names of the exogenous modules' mutants."""
FALSY_FLAG = ("f(..., flag=False) -> flag=None",
              "the flag is only tested for truth (if / conditional expression): None is False")
ADMISSIBLE_BOUND = ("the A* bound total + k + (layers left) lowered (minus the layers left, or "
                    "one less)",
                    "a lower bound stays admissible: every prefix whose bound is at most the "
                    "best total is still popped before the loop stops, and a complete "
                    "factorisation's own bound is its exact total, so completes are popped in "
                    "order of their totals: the same coarsest prefixes are found (later)")
SEARCH_PRUNE = ("a pruning shortcut of the search weakened (the partner count read over the "
                "whole matrix, or without the next layer's restriction; a restriction "
                "'&=' on an all-true mask written '=')",
                "the shortcut only skips a size whose grids would all fail; every grid is still "
                "built from blocks filtered by the same restrictions (_within), so the grids "
                "found are the same")
TOGETHER_ANY_ACTION = ("which states share an exogenous block: the exogenous blocks' "
                       "probabilities compared under every action (flag falsy) or under the "
                       "second action, rather than the first",
                       "an exogenous block exists only when its probability is the same under "
                       "every action from every state of the layer before (_exogenous_blocks), "
                       "so every action gives the same comparison (a single-action MDP, where "
                       "there is no second action, is tested)")

PPE = "kinematic.counterexamples.ppe.x"
"""The start of the names of ``kinematic/counterexamples/ppe.py``'s mutants."""
SQUARE = ("n = matrix.shape[0] -> shape[1]",
          "the matrix is square (N x N, candidates by candidates)")
EXACT_OBJECT = ("np.asarray / np.array(..., dtype=object) -> dtype None / absent",
                "exact mode only (checked first): the start and the distributions hold "
                "Fractions, which numpy keeps as an object array anyway")
ETA_RECOMPUTED = ("policy_cover_alpha(mdp, cover, eta(mdp)) -> eta None / absent",
                  "policy_cover_alpha computes eta(mdp) itself when not given: the same values")

PREDICTIVE = "kinematic.counterexamples.predictive.x"
"""The start of the names of ``kinematic/counterexamples/predictive.py``'s mutants."""
COVER_SEARCH_LONGER = ("the clique cover search stops later (at 3 covers, or not at all: 'return "
                       "True' -> 'return False' after a second cover)",
                       "only the first cover found and whether a second exists are read "
                       "(found[0], len(found) == 1): searching on after the second changes "
                       "neither (a search not stopped leaves a member appended, which only "
                       "later covers, never read, contain)")
COVER_LOWER_BOUND = ("the number of classes tried starts lower (0, or the greedy set of pairwise "
                     "incompatible groups left empty) or ends higher (n + 1)",
                     "the greedy set only gives a lower bound, valid or not: fewer classes find "
                     "no cover and the loop goes on to the same minimum; every group alone is a "
                     "cover, so the loop never reaches n + 1")

EXO = "kinematic.exogenous.x"
"""The start of the names of ``kinematic/exogenous.py``'s mutants."""
SUM_FROM_ZERO = ("sum(probabilities, Fraction(0)) -> sum(probabilities)",
                 "0 + Fraction is a Fraction and 0 + float a float: the same total, of the same "
                 "type (the rows are never empty)")

SEARCH_ENC = "kinematic.counterexamples.partition_search.x"
"""The start of the names of ``kinematic/counterexamples/partition_search.py``'s mutants."""
CONFLICT_ORDER = ("a clash counted only when the first (or the second) posterior id is above 0 "
                  "(> 0 or >= 1 for >= 0)",
                  "the conflicts are counted over ordered pairs, and same_class is symmetric: a "
                  "clash between id 0 and id k > 0 is still counted in the other order, so the "
                  "count is 0 exactly when it was")
FLOAT64_COUNTS = ("0 / 1 matrices as float32 -> float64 (astype(None))",
                  "the same 0 / 1 entries and small integer counts, exact in both")

EQUIVALENT: dict[str, tuple[str, str]] = {
    **dict.fromkeys([f"kinematic.inseparability.x__group_float__mutmut_{k}" for k in (6, 9, 13)],
                    ZIP_STRICT),
    **dict.fromkeys([f"kinematic.inseparability.x__group_float__mutmut_{k}"
                     for k in (30, 32, 33, 34, 35, 40, 42, 44)], PROJECTION),
    **dict.fromkeys([f"kinematic.inseparability.x__group_float__mutmut_{k}" for k in (74, 76, 77)],
                    UNDIRECTED),
    **dict.fromkeys([f"kinematic.inseparability.x__pairs_within__mutmut_{k}" for k in (3, 5, 7, 9)],
                    INDEX_DTYPE),
    **dict.fromkeys([f"kinematic.inseparability.x__pairs_within__mutmut_{k}" for k in (12, 18)],
                    RESHAPE_FLAT),
    **dict.fromkeys([f"kinematic.inseparability.x__check_consistent__mutmut_{k}"
                     for k in (12, 19, 25, 27)], RESHAPE_FLAT),
    "kinematic.inseparability.x__check_consistent__mutmut_5": (
        "bincount(labels) > 1 -> >= 1", "a block of one state has diameter 0: never refused"),
    "kinematic.inseparability.x__check_consistent__mutmut_6": (
        "bincount(labels) > 1 -> > 2",
        "a component of two states is one candidate pair found within atol: its diameter is that "
        "pair's distance, <= atol, so it is never refused"),
    "kinematic.homing.x__every_homing_policy_choices__mutmut_5": (
        "range(1, H) -> range(H)",
        "layer 1 gets an empty decision dict, which it already had"),
    **dict.fromkeys([f"kinematic.homing.x__every_homing_policy_choices__mutmut_{k}"
                     for k in (20, 23, 24)], ZIP_STRICT),
    **dict.fromkeys([f"kinematic.homing.x_lp_optimal_value__mutmut_{k}" for k in (32, 63, 98)],
                    RESHAPE_NEGATIVE),
    **dict.fromkeys([f"kinematic.homing.x_lp_optimal_value__mutmut_{k}" for k in (50, 52, 59, 61)],
                    LP_FLOAT_INPUT),
    **dict.fromkeys([f"kinematic.homing.x_lp_optimal_value__mutmut_{k}"
                     for k in (68, 73, 74, 76, 78, 84)], LP_DEFAULTS),
    **dict.fromkeys([f"kinematic.homing.x_lp_optimal_value__mutmut_{k}" for k in (106, 113)],
                    LP_SHARES),
    **dict.fromkeys([f"kinematic.cover.x_policy_cover_alpha__mutmut_{k}" for k in (29, 32)],
                    ZIP_STRICT),
    "kinematic.cover.x_policy_cover_alpha__mutmut_5": (
        "eta_per_layer if given -> always eta(mdp)",
        "the argument is documented as the MDP's eta, already computed: recomputing it gives "
        "the same values"),
    "kinematic.cover.x_is_policy_cover__mutmut_7": (
        "alpha >= threshold -> alpha > threshold",
        "equality is accepted by the mode's equal() on the same line (== in exact mode, within "
        "atol in float mode)"),
    "kinematic.contrastive.x_f_rho__mutmut_38": (
        "np.where(rho == 0, 1, rho) -> np.where(rho == 0, 2, rho)",
        "rho(x') = 0 only where no roll-in reaches x', so D(x, a, x') = 0 and the entry is "
        "overwritten as undefined"),
    **dict.fromkeys([f"kinematic.contrastive.x_f_rho__mutmut_{k}" for k in (39, 42)], (
        "undefined entries: None in exact mode, NaN in float mode -> None in both",
        "NumPy stores None in a float array as NaN")),
    "kinematic.contrastive.x_level_sets__mutmut_16": RESHAPE_NEGATIVE,
    **dict.fromkeys([f"kinematic.contrastive.x_level_sets__mutmut_{k}" for k in (21, 23)], (
        "np.asarray(columns, dtype=np.float64) -> dtype=None / absent (float mode)",
        "in float mode the predictor is a float64 array already")),
    **dict.fromkeys([f"kinematic.contrastive.x_level_sets__mutmut_{k}" for k in (34, 38)], (
        "labels empty -> no sets: branch forced / changed",
        "rho sums to 1, so some x' has rho(x') > 0 and the labels are never empty")),
    **dict.fromkeys([f"kinematic.contrastive.x_level_sets__mutmut_{k}" for k in (41, 44, 45)],
                    ZIP_STRICT),
    "kinematic.contrastive.x_contrastive_distribution__mutmut_25": (
        "the roll-in's sum(..., start=mode.zeros(m)) -> start 0",
        "the cover is non-empty (refused just before otherwise), and 0 + an array is that array "
        "(an object array of Fractions stays one)"),
    **dict.fromkeys([f"kinematic.cover.x_policy_cover_alpha__mutmut_{k}"
                     for k in (33, 37, 40, 41)], ZIP_STRICT),
    **dict.fromkeys([f"kinematic.planning.x_psdp_sampled__mutmut_{k}" for k in (84, 85)], (
        "propensity 1/|A| -> |A| or 2/|A|",
        "the propensity is the same for every sample: all scores scale by one positive factor "
        "and the argmax does not move")),
    **dict.fromkeys([f"kinematic.visitation.x_trajectory_distribution__mutmut_{k}"
                     for k in (13, 19)], (
        "the initial belief zeros(width) -> zeros(1) (condition changed)",
        "a length-1 zero vector broadcasts in the first addition to the full belief")),
    **dict.fromkeys([f"kinematic.visitation.x_trajectory_distribution__mutmut_{k}"
                     for k in (47, 50)], RESHAPE_FLAT),
    **dict.fromkeys([f"kinematic.inseparability.x_ki_partition__mutmut_{k}" for k in (3, 8)], (
        "backward / forward if given -> always recomputed",
        "the arguments are documented as the MDP's own partitions, already computed: "
        "recomputing them gives the same partitions")),
    **dict.fromkeys([f"kinematic.inseparability.x_ki_partition__mutmut_{k}"
                     for k in (17, 20, 21, 24, 27, 28)], ZIP_STRICT),
    "kinematic.inseparability.x__outgoing_rows__mutmut_9": RESHAPE_NEGATIVE,
    **dict.fromkeys([f"kinematic.planning.x__greedy__mutmut_{k}" for k in (5, 17, 20)], (
        "axis=-1 -> axis=+1",
        "q is always 2-d, (observations, actions): axis 1 is the last axis")),
    **dict.fromkeys([*(f"kinematic.planning.x__continuation__mutmut_{k}" for k in (13, 16, 17)),
                     *(f"kinematic.planning.x__state_values__mutmut_{k}" for k in (10, 13, 14))],
                    ZIP_STRICT),
    **dict.fromkeys([f"kinematic.homing.x__choices_for_targets__mutmut_{k}" for k in (14, 16, 18)],
                    ZIP_STRICT),
    **dict.fromkeys([f"kinematic.homing.x__start_values__mutmut_{k}" for k in (59, 62)],
                    RESHAPE_FLAT),
    **dict.fromkeys([f"kinematic.homing.x__start_values__mutmut_{k}" for k in (36, 40, 41)],
                    SHORTCUT_OFF),
    **dict.fromkeys([f"kinematic.homing.x__start_values__mutmut_{k}" for k in (37, 39)], (
        "np.asarray(mask, dtype=bool) -> dtype=None / absent",
        "== on arrays, object arrays included, already gives a bool array")),
    "kinematic.homing.x__block_columns__mutmut_9": BLOCKS,
    **dict.fromkeys([f"kinematic.homing.x__eta_per_layer__mutmut_{k}"
                     for k in (23, 24, 27, 44, 47)], BLOCKS),
    **dict.fromkeys([f"kinematic.homing.x__eta_per_layer__mutmut_{k}" for k in (29, 36)], (
        "max(widths of later layers, default=1) -> default=None / 2",
        "there are no later layers only when H = 1, and then no block is cut")),
    **dict.fromkeys([f"kinematic.homing.x__eta_per_layer__mutmut_{k}" for k in (97, 100, 101)],
                    ZIP_STRICT),
    **dict.fromkeys(["kinematic.homing.x__eta_per_layer__mutmut_86",
                     "kinematic.homing.x_eta__mutmut_3",
                     "kinematic.homing.x__named_eta_per_layer__mutmut_6"], (
        "which layers run in the thread pool, and its size",
        "each layer's induction is the same computation in a thread or not; the pool only "
        "changes where it runs")),
    **dict.fromkeys([*(f"kinematic.homing.x__exact_maximum_visitation__mutmut_{k}"
                       for k in (3, 5)), "kinematic.homing.x__eta_per_layer__mutmut_7"], (
        "the workers passed on to certified_maximum_visitation -> None / absent (one per CPU)",
        "the number of forked processes only: every target layer runs the same layer_eta in "
        "whichever process (test_certified_induction: forked == sequential)")),
    **dict.fromkeys([f"kinematic.homing.x__exact_maximum_visitation__mutmut_{k}"
                     for k in (12, 14)], (
        "a layer's certified eta discarded (values = None, or the test forced False)",
        "the layer is computed by the Fraction induction (_start_values) instead: the same "
        "exact Fractions (test_certified_induction: certified == Fraction induction); speed "
        "only")),
    **dict.fromkeys([f"kinematic.homing.x__exact_maximum_visitation__mutmut_{k}"
                     for k in (21, 36)], (
        "_start_values(..., error 0.0) -> None / 1.0 (exact mode)",
        "_start_values reads error only in float mode; exact mode's stopping rule has no "
        "tolerance")),
    "kinematic.inseparability.x__group_exact__mutmut_5": (
        "hash key: the entries != 0 -> the entries != 1",
        "the (index, value) pairs of the entries other than 1 still determine the row (the "
        "other entries are 1), so equal keys mean equal rows"),
    **dict.fromkeys([f"kinematic.inseparability.x__group_exact__mutmut_{k}" for k in (10, 13, 14)],
                    ZIP_STRICT),
    **dict.fromkeys([f"kinematic.inseparability.x__incoming_columns__mutmut_{k}" for k in (11, 16)],
                    RESHAPE_FLAT),
    **dict.fromkeys([f"kinematic.visitation.x_occupancy__mutmut_{k}" for k in (21, 25, 27)],
                    RESHAPE_FLAT),
    **dict.fromkeys([f"kinematic.model.x_check_reachable__mutmut_{k}"
                     for k in (20, 23, 24, 27, 32, 33, 34, 35)], (
        "the support test of the reachability sweep: != 0 or > 0 on either storage, dtypes left "
        "to numpy",
        "transition matrices are non-negative, so != 0 and > 0 agree on dense object arrays and "
        "on sparse float arrays alike; a bool or float mask times a float vector is float")),
    "kinematic.numbers.xǁNumberModeǁpositive__mutmut_4": (
        "np.asarray(values > 0, dtype=bool) -> absent",
        "a comparison gives a bool array already, object arrays of Fractions included"),
    "kinematic.numbers.xǁNumberModeǁpositive__mutmut_2": (
        "np.asarray(values > 0, dtype=bool) -> dtype=None",
        "a comparison gives a bool array already, object arrays of Fractions included"),
    "kinematic.numbers.xǁNumberModeǁarray__mutmut_5": (
        "np.asarray(values, dtype=object) -> absent (exact mode)",
        "as mutant 3: every entry is converted by Fraction() afterwards"),
    "kinematic.numbers.xǁNumberModeǁarray__mutmut_3": (
        "np.asarray(values, dtype=object) -> dtype=None (exact mode)",
        "every entry is converted by Fraction() afterwards: Fractions keep an object array, "
        "ints become int64 (or object when too large), and Fraction of either is exact"),
    "kinematic.model.x_with_float_numbers__mutmut_34": (
        "sparse or dense source -> always the sparse branch",
        "m.astype(np.float64) of a dense object array of Fractions is the same float64 array "
        "as floats(m); csr_array of either is the same matrix"),
    "kinematic.model.x_with_float_numbers__mutmut_36": (
        "m.astype(np.float64) -> m.astype(None) (sparse source)",
        "a sparse source is a float mode matrix already, and astype(None) means float64"),
    **dict.fromkeys([f"kinematic.contrastive.x_bayes_optimal_predictor__mutmut_{k}"
                     for k in (17, 20)], (
        "undefined entries: None in exact mode, NaN in float mode -> None in both",
        "NumPy stores None in a float array as NaN")),
    **dict.fromkeys([f"kinematic.numbers.xǁNumberModeǁzeros__mutmut_{k}" for k in (10, 12)], (
        "np.zeros(shape, dtype=np.float64) -> dtype=None / absent",
        "numpy's default dtype is float64")),
    **dict.fromkeys([f"kinematic.transition_tables.x__first_errors__mutmut_{k}"
                     for k in (14, 17, 18)], ZIP_STRICT),
    **dict.fromkeys([f"kinematic.transition_tables.x__check_rows__mutmut_{k}"
                     for k in (44, 47, 48)], ZIP_STRICT),
    "kinematic.transition_tables.x__check_rows__mutmut_54": (
        "exact_text(total) only for a Fraction -> for a float sum too",
        "exact_text(x) is str(x) (beyond the int-to-str limit only for Fractions), and str of "
        "a float sum (mode.scalar gives a Python float) is what the f-string writes"),
    **dict.fromkeys([f"kinematic.transition_tables.x_transition_matrix__mutmut_{k}"
                     for k in (26, 28)], (
        "np.asarray(columns, dtype=np.intp) -> dtype=None / absent",
        "the list holds Python ints, which NumPy stores as int64 (intp here); it is never "
        "empty there, since a layer without entries has every pair summing to 0 and is refused "
        "by the row checks before")),
    **dict.fromkeys([f"kinematic.model.x_block_mdp__mutmut_{k}" for k in (116, 118)], (
        "np.asarray(owners, dtype=np.intp) -> dtype=None / absent",
        "a list of Python ints becomes int64 (intp on 64-bit numpy 2); every state emits a "
        "positive-probability observation, so the list is never empty")),
    **dict.fromkeys([f"kinematic.certified_induction.x_certified_maximum_visitation__mutmut_{k}"
                     for k in (21, 22, 23, 24, 25, 26, 27, 29, 30, 31, 32, 40)], (
        "the number of processes or the choice between forked and sequential layers "
        "(or/and swapped, 1 -> 2, < 2 -> <= 2 / < 3, < -> <=, 'fork' misspelt or negated, "
        "Pool(None))",
        "speed only: every target layer runs the same layer_eta, in this process or in a forked "
        "one (test_certified_induction: forked == sequential)")),
    **dict.fromkeys([f"kinematic.certified_induction.x__integer_layer__mutmut_{k}"
                     for k in (12, 14, 16)], (
        "argsort(rows, kind='stable') -> default / None / 'STABLE'",
        "successors, numerators and float entries are reordered together, so only the order "
        "of a pair's entries changes: the integer sums are exact and the float matrix is built "
        "from (row, column) pairs")),
    "kinematic.certified_induction.x__integer_layer__mutmut_22": (
        "bincount(rows, minlength=pairs) -> bincount(rows)",
        "every pair of a valid layer has an entry, so the longest row index is pairs - 1; a "
        "pair without entries sums to 0 and is refused by the row-sum check either way"),
    "kinematic.certified_induction.x_exact_operations__mutmut_17": (
        "range(1, H) -> range(H) in the sum over target layers",
        "the added term is before[0] * W_1 = 0"),
    "kinematic.certified_induction.x_certified_maximum_visitation__mutmut_41": (
        "get_context('fork') -> get_context(None)",
        "Python 3.11's default start method on Linux is fork (3.14 changes it: then the "
        "children would not inherit _SHARED and the mutant would fail)"),
    "kinematic.certified_induction.x_certified_maximum_visitation__mutmut_49": (
        "_SHARED = None -> _SHARED = '' after the pool",
        "only releases the layers for the garbage collector; every call sets _SHARED first"),
    **dict.fromkeys([f"kinematic.certified_induction.x__float_deviations__mutmut_{k}"
                     for k in (13, 18, 20, 21)], (
        "the power of two that scales a column's deviations: 2^b -> 2^(b+1), 2^(b+2), 2^(b-1), "
        "or at least 2",
        "any power of two scales a column's float Q exactly and leaves every comparison, and so "
        "every decision, unchanged; the deviations stay far from overflow and the underflow "
        "checks look at the scaled values either way")),
    "kinematic.certified_induction.x__float_deviations__mutmut_2": (
        "V - min V -> V + min V",
        "the float Q of every action shifts by the same 2 min V (rows sum to 1) and all terms "
        "stay non-negative, so the relative margin still certifies a decision; more near-ties "
        "go to the exact comparison (speed)"),
    "kinematic.certified_induction.x__float_deviations__mutmut_25": (
        "astype(np.float64) -> astype(None)", "numpy's default dtype is float64"),
    **dict.fromkeys(["kinematic.certified_induction.x__float_deviations__mutmut_28",
                     "kinematic.certified_induction.x_layer_eta__mutmut_39"], (
        "an underflow check's < SAFE_MINIMUM -> <=",
        "a value exactly at the limit sends the layer to the Fraction fallback, which computes "
        "the same exact eta")),
    **dict.fromkeys([f"kinematic.certified_induction.x__settle_uncertain__mutmut_{k}"
                     for k in (11, 12, 16)], (
        "the candidates of the exact comparison: q (1 + margin) -> q (2 + margin), >= -> >, "
        "non-candidates -1 -> -2",
        "more candidates only add exact comparisons; an action exactly at the margin's limit is "
        "not the exact argmax (the margin has room to spare); exact Q are >= 0, so any "
        "negative mark for non-candidates gives the same argmax")),
    **dict.fromkeys([f"kinematic.certified_induction.x_rounding_gamma__mutmut_{k}"
                     for k in (1, 3)], (
        "gamma_n = n u / (1 - n u) -> n u (1 - n u) / n u / (1 + n u)",
        "smaller by a relative 2 n u at most; both users have room: exact mode's margin "
        "4 gamma + 8 u needs only (1 + gamma) / (1 - gamma) - 1, about 2 gamma, and the float32 "
        "step bound 2 gamma_{d+3} needs only about (d + 3) u")),
    **dict.fromkeys([f"kinematic.certified_induction.x_layer_eta__mutmut_{k}"
                     for k in (44, 45, 46, 47)], (
        "the certification margin 4 gamma + 8 u -> 4 / gamma + 8 u, 5 gamma + 8 u, "
        "4 gamma + 8 / u, 4 gamma + 9 u",
        "a larger margin only sends more decisions to the exact integer comparison "
        "(_settle_uncertain), which finds the exact argmax: same eta, slower")),
    **dict.fromkeys([f"kinematic.certified_induction.x_layer_eta__mutmut_{k}"
                     for k in (77, 81, 93, 99, 100, 101)], (
        "the uncertain set made larger: the best action masked with +1.0 instead of -1.0 "
        "(runner-up max(1, runner-up)), the runner-up over all states and columns "
        "(axis=None), `&` -> `|` between its two conditions, second (2 + margin), "
        "`uncertain = top > 0` or `|= top > 0`",
        "each only adds decisions to _settle_uncertain, whose candidates are recomputed from "
        "the float Q (the top always among them) and compared in exact integers: the same "
        "first exact argmax, so the same eta (rows with top 0 added by `|=` are all-zero: "
        "every action ties and the first is chosen either way)")),
    "kinematic.certified_induction.x_layer_eta__mutmut_78": (
        "the best action masked with -1.0 -> -2.0 before taking the runner-up",
        "every real Q is >= 0, so any negative mark gives the same runner-up, and a single "
        "action's runner-up stays negative (never uncertain)"),
    "kinematic.certified_induction.x_layer_eta__mutmut_94": (
        "second >= 0 -> second > 0 in the uncertain test",
        "with second == 0 the other condition top <= 0 holds only for top == 0, which "
        "`uncertain &= top > 0` removes either way"),
    "kinematic.certified_induction.x_layer_eta__mutmut_96": (
        "top <= second (1 + margin) -> top < second (1 + margin)",
        "a top exactly at the margin's limit is then trusted; the margin 4 gamma + 8 u has room "
        "to spare over the 2 gamma / (1 - gamma) + 2 u it needs, so it is still the exact "
        "argmax"),
    "kinematic.certified_induction.x_layer_eta__mutmut_102": (
        "uncertain &= top > 0 -> top >= 0",
        "adds the all-zero rows (top 0): every action's exact Q is 0 there, so the exact "
        "comparison picks the first action, as the float argmax did"),
    **dict.fromkeys([f"kinematic.certified_induction.x_layer_eta__mutmut_{k}"
                     for k in (130, 132)], (
        "the start numerators' dtype=object -> None / absent",
        "numpy keeps Python ints as int64 where they fit and as objects where they do not; "
        "the product with the object-dtype values casts to object (Python ints), so the sums "
        "are exact either way")),
    **dict.fromkeys([f"kinematic.certified_induction.x__integer_layer__mutmut_{k}"
                     for k in (91, 100)], RESHAPE_NEGATIVE),
    **dict.fromkeys([f"kinematic.certified_induction.x__integer_layer__mutmut_{k}"
                     for k in (102, 104)], (
        "csr_array(..., shape=(pairs, next_width)) -> shape=None / absent (inferred)",
        "the inferred shape is (largest row + 1, largest column + 1): every pair has an entry "
        "(its row sums to 1) and every next state is reachable (validated), so some entry has "
        "its column: the same shape")),
    "kinematic.numbers.x_parse_number__mutmut_2": (
        "the fast path for JSON floats (type(value) is float) never taken",
        "a float then reaches the Real branch, which returns the same float and refuses NaN "
        "and infinities the same way (speed only)"),
    "kinematic.numbers.xǁNumberModeǁidentity__mutmut_8": (
        "identity's diagonal 1 -> 2",
        "its only user (homing_policy_choices of every state) takes argmaxes of inductions "
        "from these columns: doubling the rewards doubles every Q exactly (in binary too), so "
        "every argmax and tie is the same"),
    **dict.fromkeys([f"kinematic.inseparability.x__group_exact_entries__mutmut_{k}"
                     for k in (6, 10, 14)], ZIP_STRICT),
    **dict.fromkeys([f"kinematic.inseparability.x__group_float__mutmut_{k}"
                     for k in (87, 89, 90)], UNDIRECTED),
    "kinematic.inseparability.x__incoming_columns__mutmut_6": RESHAPE_FLAT,
    **dict.fromkeys([f"kinematic.inseparability.x__group_float__mutmut_{k}"
                     for k in (47, 50)], (
        "widest = ... if count else 0 -> always computed / else 1",
        "count is 0 only for a layer without states, which validation refuses")),
    "kinematic.inseparability.x__group_float__mutmut_59": (
        "the candidate window 2 widest * max weight -> 3 widest * max weight",
        "a wider window only adds candidate pairs, each then measured by _pairs_within"),
    **dict.fromkeys([f"kinematic.inseparability.x__exact_forward_labels__mutmut_{k}"
                     for k in (3, 14, 15)], (
        "the key of an entry a W + s -> a W' + s with another layer's width, a W - s, a / W + s",
        "a state's entries arrive action by action (state-major pairs, columns ascending) and "
        "each action's sum exactly to 1 (validated), so the positions where the running sum "
        "reaches an integer cut any key sequence into its actions; within an action each of "
        "these keys still tells next states apart, so equal sequences are equal rows")),
    **dict.fromkeys([f"kinematic.model.x_block_mdp__mutmut_{k}" for k in (135, 138, 139)],
                    ZIP_STRICT),
    **dict.fromkeys([f"kinematic.model.x_block_mdp__mutmut_{k}" for k in (110, 112)], (
        "np.asarray(owners, dtype=np.intp) -> dtype=None / absent",
        "owners are Python ints, which numpy stores as int64, intp on this platform; a layer "
        "always has observations (every state's emissions sum to 1), so the list is never "
        "empty")),
    "kinematic.model.x_block_mdp__mutmut_131": (
        "sum(v * p ..., mode.scalar(0)) -> sum(v * p ...) from the int 0",
        "a reward distribution keeps at least one outcome (its probabilities sum to 1), and "
        "0 + a Fraction or a float is that Fraction or float"),
    "kinematic.model.x_with_float_numbers__mutmut_38": (
        "a sparse matrix's astype(np.float64) -> astype(None)",
        "numpy's default dtype is float64: the same float matrix"),
    **dict.fromkeys([f"kinematic.exact_sparse.x_sum_by__mutmut_{k}" for k in (5, 8, 9)],
                    ZIP_STRICT),
    "kinematic.exact_sparse.x_sum_by__mutmut_12": (
        "the first value of a key taken as it is -> always added to the shared Fraction(0)",
        "0 + value == value: a new Fraction equal to it, the same totals"),
    "kinematic.float_induction.x__regrouped__mutmut_28": (
        "staying = take(~leave) if leave.any() else columns -> always take(~leave)",
        "a copy of the same columns instead of the columns themselves"),
    **dict.fromkeys([f"kinematic.float_induction.x_start_values__mutmut_{k}"
                     for k in (10, 12, 27, 115)]
                    + ["kinematic.float_induction.x__bellman_step__mutmut_27"], (
        "astype / asarray to np.float64 -> dtype None / absent",
        "the arrays are float64 already (unit or float terminal columns, offsets) or become "
        "float64, numpy's default dtype")),
    "kinematic.float_induction.x_start_values__mutmut_120": (
        "_bellman_step(..., single=False) -> single=None", "None is falsy: the same float64 step"),
    **dict.fromkeys([f"kinematic.float_induction.x_start_values__mutmut_{k}"
                     for k in (6, 29, 30)], (
        "the initial shift or spread per column -> over the whole matrix / the other axis",
        "the first step always runs in float64 and shifts every column to minimum 0 itself; "
        "any constant shift of the terminal commutes with it, and the initial spread is "
        "replaced before it is read")),
    **dict.fromkeys([f"kinematic.float_induction.x_start_values__mutmut_{k}"
                     for k in (45, 47, 49, 51, 52, 54)], (
        "the empty initial float32 group's offsets, spent, spreads or deviations given one "
        "entry, a column or float64",
        "the group has no targets, is never stepped, and _Columns.joined returns the other "
        "group when one has no targets")),
    **dict.fromkeys([f"kinematic.float_induction.xǁ_Columnsǁconverted__mutmut_{k}"
                     for k in (12, 14, 15)], (
        "astype(dtype, copy=False) -> copy=None / True / absent",
        "a copy or a view of an array that no one else writes to")),
    **dict.fromkeys([f"kinematic.float_induction.x_single_precision_step_bound__mutmut_{k}"
                     for k in (3, 12)], (
        "the step bound 2 gamma_{d+3} -> 2 gamma_{d+4} / 3 gamma_{d+3}",
        "still a bound: the rounding of a float32 step is at most gamma_{d+2} (1 + d 2**-52) "
        "times the spread before it plus u / (1 - u) times the one after it, about (d + 3) u, "
        "and these bounds are larger; a larger bound only switches columns later")),
    **dict.fromkeys([f"homer.counterexamples.x__learned_labels__mutmut_{k}" for k in (3, 5)], (
        "layer 1's labels np.zeros(n, np.intp) -> np.zeros(n) (float zeros)",
        "layer 1's one class is read only by state_groups, which takes int(label), and by "
        "abstract_cover_alpha, whose np.unique and searchsorted give 0.0 the same class index")),
    # homer/evaluate.py
    "homer.evaluate.x_evaluate_abstraction__mutmut_12": ENCODER_DEFAULT,
    "homer.evaluate.x_learned_classes__mutmut_24": DTYPE_KIND,
    "homer.evaluate.x_pairwise_agreement__mutmut_7": (
        "one row too many in by_state (states.max() + 2)",
        "the extra row holds no observation: zeros, adding nothing to any of the three sums"),
    **dict.fromkeys([f"homer.evaluate.x_exact_partitions__mutmut_{k}" for k in (11, 12, 15)], (
        "ki_partition(mdp, backward, forward) -> None for backward or forward",
        "ki_partition computes a partition it is not given: the same one, again")),
    **dict.fromkeys([f"homer.evaluate.x_cover_roll_in__mutmut_{k}" for k in (17, 19)],
                    FLOAT_ALREADY),
    # homer/policy_evaluation.py
    **dict.fromkeys([f"homer.policy_evaluation.x__action_rows__mutmut_{k}" for k in (58, 70)], (
        "|row sum - 1| > 1e-4 -> >= 1e-4",
        "a float64 sum near 1 differs from 1 by a multiple of 2**-53, and the double 1e-4 is "
        "not one: no sum lies exactly on the boundary")),
    "homer.policy_evaluation.x__action_rows__mutmut_22": DTYPE_KIND,
    "homer.policy_evaluation.x__action_rows__mutmut_54": (
        "output.astype(np.float64) -> astype(None)", "astype(None) is float64"),
    "homer.policy_evaluation.x__action_rows__mutmut_82": (
        "the first row with |row sum - 1| > 1e-4 (for the message) -> >= 1e-4",
        "a float64 sum near 1 differs from 1 by a multiple of 2**-53, and the double 1e-4 is "
        "not one: no sum lies exactly on the boundary"),
    **dict.fromkeys([f"homer.policy_evaluation.x_evaluate_policies__mutmut_{k}"
                     for k in (40, 43, 44)], ZIP_STRICT),
    "homer.policy_evaluation.x_evaluate_policies__mutmut_17": ENCODER_DEFAULT,
    **dict.fromkeys([f"homer.policy_evaluation.x_evaluate_policies__mutmut_{k}"
                     for k in (63, 65)], (
        "latent.value(policy, name) -> no name / None",
        "the name only enters errors of the policy's first evaluation, made (and kept) by "
        "latent.visitation with the name just before")),
    "homer.policy_evaluation.x_read_cover__mutmut_4": (
        "callable(policies) or not isinstance(policies, list | tuple | Mapping) -> "
        "callable(None) or ...",
        "a callable that is a list, tuple or Mapping does not occur: a lone function fails the "
        "isinstance test as well"),
    **dict.fromkeys([f"homer.policy_evaluation.x_cover_step__mutmut_{k}"
                     for k in (34, 37, 38, 44, 47, 48, 54, 57, 58)], ZIP_STRICT),
    **dict.fromkeys([f"homer.policy_evaluation.x_eta_floats__mutmut_{k}" for k in (2, 4)],
                    FLOAT_ALREADY),
    **dict.fromkeys([f"homer.policy_evaluation.xǁLatentPoliciesǁvisitation__mutmut_{k}"
                     for k in (14, 16)], FLOAT_ALREADY),
    # homer/evaluate.py's merge rates
    "homer.evaluate.x_merge_rates__mutmut_19": (
        "np.where(holds, counts, -1).argmax() -> -2 for the learned classes left out",
        "counts are never negative and at least one learned class holds as large a share of "
        "the target as of the source (the shares of each sum to 1), so any negative sentinel "
        "is never the argmax"),
    # homer/summary.py
    "homer.summary.x__value_lines__mutmut_1": (
        "values is None or action_standard_errors is None -> and",
        "evaluate_policies sets both together (None without rewards, lists with them): the "
        "second test only narrows the type for the type checker"),
    **dict.fromkeys([f"homer.summary.x_abstraction_table__mutmut_{k}" for k in (54, 57, 58)],
                    ZIP_STRICT),
    **dict.fromkeys([f"homer.summary.x_format_evaluation__mutmut_{k}" for k in (37, 40)], (
        "setting('policies', ..., flag='--policies') -> flag None / absent",
        "flag_of('policies') is '--policies'")),
    "homer.summary.x_format_evaluation__mutmut_51": (
        "the policies' name when none was given: evaluation.policies or '' -> or 'XXXX'",
        "homer evaluate builds an Evaluation with a cover only from named policies "
        "(--policies), so a cover never comes without its name"),
    # homer/compare.py
    **dict.fromkeys([f"homer.compare.x_compare_dynamics__mutmut_{k}" for k in (37, 41)], (
        "sampler.run(..., last_step=layer) -> last_step None / absent (to the last step)",
        "the episodes are drawn step by step: their steps up to layer are the same draws, "
        "the later steps only advance the generator (so compare_run's next layer draws other "
        "transitions of the same distribution); speed only")),
    **dict.fromkeys([f"homer.compare.x_compare_dynamics__mutmut_{k}" for k in (94, 96)], (
        "np.errstate(divide='ignore') -> divide None / absent",
        "counts / totals divides only 0 by 0 (a pair without transitions has zero counts): "
        "'invalid', never 'divide'")),
    **dict.fromkeys([f"homer.compare.x_compare_dynamics__mutmut_{k}" for k in (112, 114)], (
        "np.asarray(transition_tensor, dtype=float) -> dtype None / absent",
        "an exact canonical form's Fractions subtracted from float estimates give floats "
        "(float - Fraction converts the Fraction), the same numbers")),
    **dict.fromkeys([f"homer.compare.x_compare_run__mutmut_{k}"
                     for k in (46, 48, 50, 131, 136)], (
        "the canonical form computed once -> None / canonical_form(mdp) (compare_dynamics then "
        "computes it)",
        "canonical_form(mdp) is canonical_form(mdp, ki_partition(mdp)): the same form, "
        "computed again per layer")),
    **dict.fromkeys([f"homer.compare.x_compare_run__mutmut_{k}" for k in (96, 97)], (
        "compare_steps(..., partitions, roll_in) -> None for either",
        "compare_steps computes the exact partitions and the cover roll-in it is not given: "
        "the same ones, again")),
    **dict.fromkeys([f"homer.compare.x_compare_run__mutmut_{k}" for k in (157, 158)], (
        "the cover's key 'step' left out of a step's entry -> another key left out",
        "cover_step's 'step' is the step itself, which the entry already holds")),
    **dict.fromkeys([f"homer.psdp.x_fit_q__mutmut_{k}" for k in (4, 20)], (
        "observations / rewards .astype(np.float64) -> .astype(None)",
        "astype(None) converts to numpy's default dtype, float64")),
    "homer.psdp.x_fit_q__mutmut_35": (
        "X_c^T (y - mean(y)) -> X_c^T (y + mean(y))",
        "the centred design's columns sum to 0, so X_c^T (y + c) = X_c^T y for any constant c "
        "(up to rounding)"),
    **dict.fromkeys([f"homer.psdp.x_psdp__mutmut_{k}" for k in (6, 8, 14, 16)], (
        "the placeholder steps np.zeros(..., np.float32) -> dtype None / absent (float64)",
        "every step is replaced by fit_q's float32 arrays (or by first) before psdp returns, "
        "and the continuation of step t reads only the steps after t, already learned")),
    **dict.fromkeys([f"{BATCHED}ǁ_Thinnedǁadd__mutmut_{k}" for k in (23, 26, 30)], (
        "zip(points[::2], points[1::2], strict=False) -> strict=None / True / absent",
        "the points are merged when their count reaches the limit, 2000 (the only one used): "
        "an even count, so the two halves have equal lengths")),
    **dict.fromkeys([f"{BATCHED}ǁ_Layersǁof__mutmut_{k}" for k in (4, 6, 8, 9)], (
        "the placeholder for a parameter without a gradient, np.empty(0, float32) -> None / "
        "float64 / np.empty(1)",
        "only the RND target's parameters have no gradient (the network's and the predictor's "
        "are views of the flat gradient), and the target is only run forward: its gradient "
        "entries are never read or written")),
    **dict.fromkeys([f"{BATCHED}ǁ_Layersǁforward__mutmut_{k}" for k in (8, 11, 12)], ZIP_STRICT),
    **dict.fromkeys([f"{BATCHED}ǁ_Layersǁforward__mutmut_{k}" for k in (24, 27)], (
        "np.maximum(out, 0.0, out=out) -> out=None / absent (a new array)",
        "the ReLU's values are the same; the pre-activation array is not read again (in place "
        "only saves an allocation)")),
    f"{BATCHED}ǁ_FlatRMSpropǁclip__mutmut_11": (
        "norm + 1e-6 > max_norm -> >=",
        "when norm + 1e-6 == max_norm the scale max_norm / (norm + 1e-6) is exactly 1"),
    f"{BATCHED}ǁBatchedLearnerǁ__init____mutmut_35": (
        "torch.random.fork_rng(devices=[]) -> devices=None",
        "None forks the CUDA generators as well; on a machine without CUDA there are none, and "
        "with CUDA they are not used (every computation is on the CPU)"),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁprobabilities__mutmut_{k}" for k in (4, 6, 7)], (
        "encodings.astype(np.float32, copy=False) -> copy=None / True / absent",
        "only whether a float32 input is copied; the forward pass never writes into its input")),
    f"{BATCHED}ǁBatchedLearnerǁ_rollout__mutmut_29": (
        "values = np.empty((H + 1, W)) -> (H + 2, W)",
        "rows 0 .. H are written and read (values[t + 1] for t < H); the extra row is never read"),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁ_rollout__mutmut_{k}" for k in (40, 41, 42)], (
        "the message of `assert current is not None` changed",
        "VectorEnv returns the next encodings after each of the first H - 1 steps of a batch "
        "(None only after the H-th): the assertion cannot fail")),
    f"{BATCHED}ǁBatchedLearnerǁ_rollout__mutmut_84": (
        "bonus.astype(np.float64) -> bonus.astype(None)",
        "astype(None) converts to numpy's default dtype, float64"),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁ_rollout__mutmut_{k}"
                     for k in (86, 110, 112, 114)], MASK_REDUNDANT),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁ_rollout__mutmut_{k}" for k in (141, 159)],
                    RESHAPE_NEGATIVE),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁ_rollout__mutmut_{k}"
                     for k in (144, 147, 150, 153)], RESHAPE_FLAT),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁ_network_gradient__mutmut_{k}" for k in (18, 19)],
                    ("the entropy term's d/d log pi = (log pi + 1) pi c -> (log pi - 1) / "
                     "(log pi + 2)",
                     "a constant k adds k c pi to the gradient w.r.t. log pi, and through the "
                     "log-softmax (dz = g - pi sum(g)) that is k c (pi - pi sum(pi)) = 0 (up to "
                     "rounding)")),
    f"{BATCHED}ǁBatchedLearnerǁupdate__mutmut_8": (
        "A2C's _network_gradient(..., old, ...) -> old=None",
        "A2C's loss -mean(log pi(a|x) A) does not read the old log-probabilities"),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁupdate__mutmut_{k}" for k in (27, 28, 29, 30)],
                    WHOLE_FLAT_ARRAY),
    f"{BATCHED}ǁBatchedLearnerǁupdate__mutmut_37": (
        "the RND targets shuffled into the minibatches with or without RND",
        "without RND the minibatches' targets are never read (a copy more)"),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁupdate__mutmut_{k}" for k in (66, 68)],
                    NO_RND_PREDICTOR_STEP),
    **dict.fromkeys([f"{BATCHED}__save__mutmut_{k}" for k in (9, 11, 22, 24)], FLOAT64_PAIRS),
    **dict.fromkeys([f"{BATCHED}__save__mutmut_{k}" for k in (13, 26)], RESHAPE_NEGATIVE),
    f"{BATCHED}__load__mutmut_10": FLOAT64_PAIRS,
    **dict.fromkeys([f"{BATCHED}_run_batched_baseline__mutmut_{k}"
                     for k in (188, 191, 192, 195, 198, 199)], ZIP_STRICT),
    **dict.fromkeys([f"homer.baselines.batched_checkpoint.x_claim__mutmut_{k}"
                     for k in (55, 57, 58)], (
        "identity.json written with json.dumps(indent=1) -> indent None / 2 / absent",
        "whitespace only: the file is read back (and by anyone) as the same JSON object")),
    "homer.baselines.batched_state.x__points__mutmut_9": (
        "np.dtype(np.float64) -> np.dtype(None)", "np.dtype(None) is float64"),
    "homer.baselines.batched_state.x_read_state__mutmut_84": (
        "range(0, updates + 1) -> range(updates + 1)", "the same range"),
    **dict.fromkeys([f"homer.baselines.batched_state.x_read_state__mutmut_{k}"
                     for k in (119, 122)], (
        "np.arange(1, n + 1, dtype=np.float64) -> dtype None / absent (int64)",
        "the expected episode counts are compared by value with the stored float64 column; "
        "they are integers far below 2**53, exact in both types")),
    "homer.baselines.batched_checkpoint.x_write_checkpoint__mutmut_6": (
        "json.dumps(allow_nan=False) -> allow_nan=None",
        "the encoder tests `not allow_nan`: None refuses NaN and infinities as False does"),
    "homer.baselines.batched_checkpoint.x_write_checkpoint__mutmut_16": (
        "np.savez(allow_pickle=False) -> allow_pickle=None",
        "numpy tests `not allow_pickle`: None refuses object arrays as False does"),
    **dict.fromkeys([f"homer.baselines.npz_entries.x__fits__mutmut_{k}" for k in (10, 13, 14)],
                    ZIP_STRICT),
    **dict.fromkeys([f"homer.baselines.npz_entries.xǁNpzEntriesǁarray__mutmut_{k}"
                     for k in (30, 32)], (
        "stream.read(size + 1) -> read(None) / read(size + 2)",
        "any read past the declared size shows data beyond it (len(data) != size) and reaches "
        "the member's end, where the CRC is checked; the member's length is bounded by the "
        "archive already in memory")),
    "homer.baselines.npz_entries.xǁNpzEntriesǁarray__mutmut_41": (
        "'more' if len(data) > size -> >= size",
        "the message is only built when len(data) != size"),
    **dict.fromkeys([f"homer.baselines.npz_entries.xǁNpzEntriesǁarray__mutmut_{k}"
                     for k in (59, 61, 63)], (
        "order='F' / 'C' -> 'f' / 'c'", "NumPy reads the order argument case-insensitively")),
    "homer.baselines.vector_env.xǁVectorEnvǁ__init____mutmut_17": (
        "dimension = rotation.shape[0] -> shape[1]",
        "the rotation is a square d x d matrix"),
    **dict.fromkeys([f"homer.baselines.vector_env.xǁVectorEnvǁ__init____mutmut_{k}"
                     for k in (36, 38, 40, 41, 42)], (
        "the placeholders of the states, observations and returns collected before the first "
        "reset -> None / float / of length 1",
        "reset() replaces all three before they are read, and step() refuses to run before "
        "reset()")),
    "homer.baselines.rnd.xǁRandomNetworkDistillationǁ__init____mutmut_48": (
        "torch.optim.Adam(..., lr=learning_rate) -> lr absent",
        "the learning rate's default, 1e-3, is Adam's default"),
    "homer.baselines.evaluation.xǁValueEvaluatorǁ_policy__mutmut_4": (
        "latent(..., remember=False) -> remember=None",
        "LatentPolicies.latent tests `not remember`: None does not keep the policy, as False"),
    **dict.fromkeys([f"homer.baselines.evaluation.xǁValueEvaluatorǁvisitation__mutmut_{k}"
                     for k in (5, 8, 14, 17, 20, 21)], ZIP_STRICT),
    **dict.fromkeys([f"homer.baselines.pcid.xǁ_Decoderǁ__call____mutmut_{k}" for k in (1, 2)], (
        "weight is None or bias is None or centres is None -> one `or` made `and`",
        "a decoder's weight, bias and centres are None together (layer 1) or all set")),
    **dict.fromkeys([f"homer.baselines.pcid.xǁ_AbstractPolicyǁprobabilities__mutmut_{k}"
                     for k in (3, 8, 9, 10, 11, 12)], (
        "the action at a step past the policy's length (0) changed or never used",
        "probabilities is called only by the evaluator, on the final policy, at steps 0 .. H - "
        "1, and the final policy has an action table for each of the H steps (roll-in "
        "policies are only asked to act within their length)")),
    **dict.fromkeys([f"homer.baselines.pcid.x__learn__mutmut_{k}" for k in (23, 24, 25)], (
        "layer 1's roll-in policy built with decoders, actions or total None",
        "it rolls in for 0 steps: it is never asked for an action")),
    "homer.baselines.pcid.x__learn__mutmut_183": (
        "the roll-in policies of layer h + 1 built with total None",
        "total is read by probabilities() only, which the evaluator calls on the final policy; "
        "roll-in policies are only asked to act"),
    "homer.baselines.pcid.x__learn__mutmut_35": (
        "for h in range(1, H + 1) -> range(1, H + 2)", "the loop breaks at h = H"),
    "homer.baselines.pcid.x__learn__mutmut_86": (
        "np.add.at(counts, ..., 1) -> 2 (every reward count doubled)",
        "every mean reward is halved, and the final plan maximises the sum of the means (its "
        "terminal values are 0): the same sums halved, the same choices"),
    "homer.baselines.pcid.x__learn__mutmut_160": (
        "np.add.at(transitions, ..., 1) -> 2",
        "the counts are divided by their totals: the same model"),
    **dict.fromkeys([f"homer.baselines.pcid.x__learn__mutmut_{k}" for k in (207, 210, 211)],
                    ZIP_STRICT),
    **dict.fromkeys([f"homer.baselines.pcid.x__learn__mutmut_{k}" for k in (260, 272, 273)], (
        "compare_classes(..., 'ki', ...) -> None / 'XXkiXX' / 'KI'",
        "the kind only labels the comparison; its wrong merges do not read it")),
    "homer.baselines.pcid.x__learn__mutmut_274": (
        "partition.blocks(step) -> partition.blocks(None) (the blocks of every layer)",
        "the step's states keep their blocks, numbered after the earlier layers' ones; wrong "
        "merges count the blocks a learned class merges, whatever their numbers"),
    **dict.fromkeys([f"homer.baselines.vector_env.xǁVectorEnvǁ_emit__mutmut_{k}" for k in (20, 25)],
                    ("encoder.encode(..., self.rotation) -> rotation None / absent",
                     "the rotation passed is a cache: encode computes the same "
                     "encoder.rotation(mdp) when it is not given")),
    # homer/sweep.py
    **dict.fromkeys([f"homer.sweep.xǁConfigurationǁsort_key__mutmut_{k}" for k in (2, 4)], (
        "a learning rate or coefficient that does not apply (None) sorts as 1.0 instead of 0.0",
        "configurations are sorted within one algorithm, where a field that does not apply is "
        "None in every configuration (tuned): a constant in every key")),
    **dict.fromkeys([f"homer.sweep.x_thin_curve__mutmut_{k}" for k in (8, 10)], (
        "np.array(episodes, dtype=np.float64) -> dtype None / absent (an int array)",
        "the episodes are ints: their differences, the geometric edges, the bucket search and "
        "the weighted means are the same from ints, and the kept counts are int() again")),
    "homer.sweep.x_thin_curve__mutmut_45": (
        "np.searchsorted(..., side='left') -> side absent", "numpy's default side is 'left'"),
    "homer.sweep.x__attempt__mutmut_36": (
        "encode('utf-8') -> encode('UTF-8')", "codec names are case-insensitive"),
    "homer.sweep.x__record__mutmut_8": (
        "decode('utf-8') -> decode('UTF-8')", "codec names are case-insensitive"),
    "homer.sweep.x__attempt__mutmut_45": (
        "errors[-1] -> errors[+1]", "the loop makes exactly two attempts: errors has two "
                                    "entries, and errors[1] is errors[-1]"),
    "homer.sweep.x__is_curve__mutmut_16": (
        "NumberRange(float).contains -> NumberRange(None).contains",
        "NumberRange only tells int from the rest (kind is int); any other kind accepts the "
        "same finite ints and floats"),
    **dict.fromkeys([f"homer.sweep.x__finished__mutmut_{k}" for k in (23, 26)], (
        "warnings.warn(..., stacklevel=2) -> stacklevel absent / 3",
        "the stack level only picks the source line a warning is reported at (the command "
        "prints the message alone); the record dropped and its task rerun are the same")),
    "homer.sweep.x__finished__mutmut_37": (
        "continue after dropping a torn last line -> break",
        "the torn line is the last: there is nothing after it to read"),
    # homer/sweep_verdicts.py
    **dict.fromkeys([f"homer.sweep_verdicts.x_paper_claim__mutmut_{k}" for k in (22, 35, 37)], (
        "the boundaries H <= 3 -> <= 4, H <= 25 -> <= 26, H >= 50 -> always",
        "a horizon reaches these lines only when it is one the paper ran (3, 6, 12, 25, 50, "
        "100: the first test returns None for any other), and none lies between the old and "
        "the new boundary")),
    **dict.fromkeys([f"homer.sweep_verdicts.x__outcome__mutmut_{k}" for k in (18, 19)]
                    + [f"homer.sweep_verdicts.x__seed_outcome__mutmut_{k}" for k in (28, 29)], (
        "the outcome 'open' -> 'XXopenXX' / 'OPEN'",
        "an open outcome is never named: only 'reached' and 'missed' are tested or counted")),
    **dict.fromkeys([f"homer.sweep_verdicts.x__seed_outcome__mutmut_{k}" for k in (13, 16, 17)],
                    ZIP_STRICT),
    "homer.sweep_verdicts.x__fit__mutmut_23": (
        "the slope from one horizon without an exponent: min(max(0, low), high) -> "
        "min(max(1, low), high)",
        "only the PPO / A2C fit has no exponent, and its bounds are (-inf, 0]: both give 0"),
    "homer.sweep_verdicts.x_projected_core_hours__mutmut_71": (
        "seconds * DEFAULT_TORCH_THREADS -> seconds / DEFAULT_TORCH_THREADS",
        "DEFAULT_TORCH_THREADS is 1 (homer/config.py)"),
    "homer.sweep_verdicts.x_verdict_table__mutmut_72": (
        "sum(cost or 0.0 over the open cells) -> cost or 1.0",
        "an open cell is one with a cost (not None), and a cost is positive (seconds > 0 and "
        "episodes > 0 are required to measure one): the 'or' never applies"),
    **dict.fromkeys([f"{EXO_KI}_chain_partitions__mutmut_{k}" for k in (50, 53, 54, 57, 60, 61)],
                    ZIP_STRICT),
    **dict.fromkeys([f"{EXO_KI}__labels_by_name__mutmut_{k}" for k in (4, 7, 8, 11, 14, 15)],
                    ZIP_STRICT),
    **dict.fromkeys([f"{EXO_KI}__matrix__mutmut_{k}" for k in (4, 6)], (
        "np.array(T_ex rows, dtype=object) -> dtype None / absent",
        "the matrix goes through mode.array, which makes it an object array of Fractions "
        "(exact) or float64 (float) whatever numpy inferred")),
    **dict.fromkeys([f"{EXO_KI}_predicted_ki_partitions__mutmut_{k}" for k in (35, 36, 39)], (
        "ki_partition(endogenous, backward, forward) -> backward or forward None / absent",
        "ki_partition computes a partition it is not given: the same backward / forward KI "
        "partition of the endogenous Block MDP, computed twice")),
    **dict.fromkeys([f"{EXO_CHECK}ǁ_Layerǁ__init____mutmut_{k}" for k in (13, 16, 17)], ZIP_STRICT),
    **dict.fromkeys([f"{EXO_CHECK}ǁ_Layerǁsums__mutmut_{k}" for k in (9, 12, 13)], ZIP_STRICT),
    f"{EXO_CHECK}_check_factorisation__mutmut_41": FALSY_FLAG,
    **dict.fromkeys([f"{EXO_CHECK}__step__mutmut_{k}" for k in (16, 26)], FALSY_FLAG),
    f"{EXO_CHECK}__parts__mutmut_8": FALSY_FLAG,
    **dict.fromkeys([f"{EXO_SEARCH}ǁ_Layerǁ{method}__mutmut_{k}"
                     for method, numbers in (("_build", (30, 33, 34)),
                                             ("_exogenous_blocks", (31, 34, 35)),
                                             ("_endogenous", (75, 78, 79)))
                     for k in numbers], ZIP_STRICT),
    **dict.fromkeys([f"{EXO_SEARCH}__scaled__mutmut_{k}" for k in (3, 5)], FLOAT_ALREADY),
    f"{EXO_SEARCH}__scaled__mutmut_14": (
        "int64 when the scale is at most 2^30 -> object always",
        "Python ints are exact at any size: the same comparisons, slower"),
    f"{EXO_SEARCH}__scaled__mutmut_16": (
        "scale <= 2^30 -> scale < 2^30 (int64 or object at exactly 2^30)",
        "both are exact at 2^30: the products stay below 2^62 in int64, and Python ints are "
        "exact"),
    **dict.fromkeys([f"{EXO_SEARCH}__indicator__mutmut_{k}" for k in (7, 9)], (
        "np.asarray(bitmasks, dtype=np.int64) -> dtype None / absent",
        "the bitmasks are Python ints below 2^12 (MAX_STATES_PER_LAYER bits): numpy makes them "
        "int64 itself")),
    f"{EXO_SEARCH}__indicator__mutmut_11": RESHAPE_NEGATIVE,
    f"{EXO_SEARCH}ǁ_Layerǁ__init____mutmut_40": RESHAPE_NEGATIVE,
    f"{EXO_SEARCH}ǁ_Layerǁtogether__mutmut_21": RESHAPE_NEGATIVE,
    f"{EXO_SEARCH}ǁ_Layerǁ__init____mutmut_42": (
        "self.rows = np.unique(rows) -> the rows with their repetitions",
        "the rows are only read by _endogenous, which asks that every row pass: a repeated row "
        "passes or fails as its first copy does"),
    f"{EXO_SEARCH}ǁ_Layerǁ__init____mutmut_55": (
        "expected reward += p r -> -= p r",
        "the expected rewards are only compared for equality (same_rewards): negating every "
        "one keeps which are equal"),
    **dict.fromkeys([f"{EXO_SEARCH}ǁ_Layerǁtogether__mutmut_{k}" for k in (7, 10)], (
        "the indicator in the incoming rows' dtype -> int64 (dtype None / absent)",
        "an int64 indicator times int64 rows is int64, times object rows Python ints: the same "
        "exact sums")),
    **dict.fromkeys([f"{EXO_SEARCH}ǁ_Layerǁtogether__mutmut_{k}" for k in (12, 14)],
                    TOGETHER_ANY_ACTION),
    **dict.fromkeys([f"{EXO_SEARCH}__together__mutmut_{k}" for k in (2, 5, 7)],
                    TOGETHER_ANY_ACTION),
    f"{EXO_SEARCH}ǁ_Layerǁgrids__mutmut_4": (
        "the cache key b'' of an unrestricted search -> b'XXXX'",
        "any key that no restriction's bytes (0 / 1 bytes of boolean arrays) can equal: the "
        "same cache"),
    **dict.fromkeys([f"{EXO_SEARCH}ǁ_Layerǁ_build__mutmut_{k}" for k in (4, 6, 8, 20)],
                    SEARCH_PRUNE),
    f"{EXO_SEARCH}ǁ_Layerǁ_build__mutmut_11": (
        "n // size -> n / size", "size divides n (the search tries divisors only)"),
    **dict.fromkeys([f"{EXO_SEARCH}ǁ_Layerǁ_endogenous__mutmut_{k}" for k in (10, 12)], (
        "np.array(single bits, dtype=np.int64) -> dtype None / absent",
        "Python ints below 2^12: numpy makes them int64 itself")),
    f"{EXO_SEARCH}__within__mutmut_2": (
        "(~together).astype(np.int64) -> astype(None) (float64)",
        "0 / 1 entries: the products and sums are small integers, exact in float64, and only "
        "compared with 0"),
    f"{EXO_SEARCH}_exact_covers__mutmut_8": (
        "(block & -block).bit_length() - 1 -> (block | -block).bit_length() - 1",
        "for block > 0, block | -block = -(block & -block), and bit_length ignores the sign: "
        "the same index of the lowest bit"),
    f"{EXO_SEARCH}_exact_covers__mutmut_21": (
        "(~covered & (covered + 1)).bit_length() - 1 -> (~covered | (covered + 1))...",
        "with k the lowest zero bit of covered, ~covered | (covered + 1) = -(2^k) (bits below k "
        "are 0 in both, bit k and every bit above are 1 in one of them), whose bit_length is "
        "k + 1: the same index"),
    f"{EXO_SEARCH}__search__mutmut_9": (
        "divisors of n among range(1, n + 1) -> range(1, n + 2)", "n + 1 never divides n"),
    **dict.fromkeys([f"{EXO_SEARCH}__search__mutmut_{k}" for k in (22, 23, 64, 66)],
                    ADMISSIBLE_BOUND),
    f"{EXO_SEARCH}__search__mutmut_52": (
        "best = total if best is None else best -> best = total always",
        "a complete factorisation is popped only when its bound, its exact total, is at most "
        "best (else the loop stops), and completes are popped in order of their totals: "
        "total is best whenever it is reassigned"),
    **dict.fromkeys([f"{EXO_SEARCH}_endogenous_factorisations__mutmut_{k}" for k in (9, 11)], (
        "the search tolerance in exact mode: 0 -> SLACK * width * atol or 1",
        "exact mode compares with == (_Numbers.equal), never with the tolerance")),
    f"{EXO_SEARCH}_endogenous_factorisations__mutmut_21": (
        "_Numbers(exact, 0.0) -> _Numbers(None, 0.0) in exact mode",
        "|a - b| <= 0 for integers (int64 or Python ints) is a == b"),
    **dict.fromkeys([f"{EXO_SEARCH}_endogenous_factorisations__mutmut_{k}" for k in (30, 35)], (
        "islice(chains, max_partitions + 1) -> islice(chains, None) / max_partitions + 2",
        "more than max_partitions chains is refused either way, with the same message (it "
        "names the classes, not the count); at most max_partitions are kept whole")),
    **dict.fromkeys([f"{PPE}ǁPPEResultǁ__str____mutmut_{k}" for k in (26, 29, 30)], ZIP_STRICT),
    f"{PPE}__distance_lines__mutmut_2": SQUARE,
    f"{PPE}_eliminate_paths__mutmut_2": SQUARE,
    f"{PPE}_eliminate_paths__mutmut_18": (
        "alive[j] = False -> None", "alive is only tested for truth: None is False"),
    **dict.fromkeys([f"{PPE}_open_loop_policy__mutmut_{k}" for k in (17, 20)], (
        "np.full(shape, 1 / K, dtype=mode.dtype) -> dtype None / absent",
        "the fill is the mode's own number (a Fraction: object array; a float: float64)")),
    **dict.fromkeys([f"{PPE}_open_loop_policy__mutmut_{k}" for k in (30, 32)], (
        "Policy(tables, mdp) -> Policy(tables) / mdp None",
        "the MDP only lets Policy check the tables' shapes, which are built from that MDP's "
        "observations and actions; no caller prints the policy by name")),
    f"{PPE}__posteriors__mutmut_14": (
        "posterior rows of the observations no candidate reaches: 0 -> 1",
        "the gaps read the reached rows only, and the decoder's argmax of a constant row is "
        "the first kept path either way (0)"),
    **dict.fromkeys([f"{PPE}_exact_ppe__mutmut_{k}" for k in (9, 11, 25, 27)], EXACT_OBJECT),
    **dict.fromkeys([f"{PPE}_open_loop_alpha__mutmut_{k}" for k in (7, 9)], EXACT_OBJECT),
    **dict.fromkeys([f"{PPE}_exact_ppe__mutmut_{k}" for k in (75, 83, 86)], ETA_RECOMPUTED),
    **dict.fromkeys([f"{PREDICTIVE}__covers__mutmut_{k}" for k in (10, 11, 30, 36)],
                    COVER_SEARCH_LONGER),
    **dict.fromkeys([f"{PREDICTIVE}__minimum_cover__mutmut_{k}" for k in (2, 11, 14)],
                    COVER_LOWER_BOUND),
    **dict.fromkeys([f"{PREDICTIVE}__minimum_cover__mutmut_{k}" for k in (27, 28, 29)], (
        "the message of AssertionError('every group alone is a cover')",
        "unreachable: the loop tries up to one class per group, and every group alone is a "
        "cover")),
    **dict.fromkeys([f"{PREDICTIVE}_coarsest_optimal_abstraction__mutmut_{k}" for k in (23, 25)], (
        "np.empty(m, dtype=np.intp) -> dtype None (float64) for the class of each observation",
        "every entry is assigned a class index, and first_appearance renumbers the values as "
        "np.intp labels: the same labels")),
    "kinematic.counterexamples.multistep_inverse.x_multistep_inverse_joint__mutmut_10": (
        "identity * scalar(1) -> identity / scalar(1)", "both are the identity of Fractions"),
    "kinematic.counterexamples.multistep_inverse.x_multistep_inverse_joint__mutmut_38": (
        "einsum('xay,yz->xza') -> einsum('XAY,YZ->XZA')",
        "the same contraction with the subscripts renamed"),
    **dict.fromkeys([f"{EXO}_exogenous_block_mdp__mutmut_{k}" for k in (19, 22, 24, 40, 43, 46)],
                    ZIP_STRICT),
    f"{EXO}_exogenous_block_mdp__mutmut_70": (
        "check the product's numbers when the chain has floats and the endogenous MDP is exact -> "
        "when either holds",
        "a chain mixes no float with a fraction a float would round (exogenous_chain refuses "
        "it), so when one part alone holds floats or fractions their products cannot mix: the "
        "wider check finds nothing"),
    f"{EXO}__probabilities__mutmut_32": SUM_FROM_ZERO,
    f"{EXO}__marginals__mutmut_11": SUM_FROM_ZERO,
    f"{EXO}__layer_of__mutmut_5": (
        "the message of the error for a reward key that is neither a state nor an observation",
        "unreachable: the keys come from to_spec, which writes rewards under the MDP's own "
        "observation names"),
    f"{SEARCH_ENC}__same_class__mutmut_1": FLOAT64_COUNTS,
    f"{SEARCH_ENC}__conflicts__mutmut_11": FLOAT64_COUNTS,
    f"{SEARCH_ENC}ǁLatentTablesǁ__init____mutmut_23": (
        "(weights > 0).astype(float) -> astype(None)", "None is float64 too"),
    **dict.fromkeys([f"{SEARCH_ENC}__conflicts__mutmut_{k}" for k in (6, 7, 8, 9)],
                    CONFLICT_ORDER),
    f"{SEARCH_ENC}__same_class__mutmut_8": RESHAPE_NEGATIVE,
    **dict.fromkeys([f"{SEARCH_ENC}ǁLatentTablesǁ__init____mutmut_{k}" for k in (21, 38)],
                    RESHAPE_NEGATIVE),
    f"{SEARCH_ENC}ǁLatentTablesǁ__init____mutmut_30": (
        "index.reshape(rows, -1) -> reshape(-1)", "index is only read through index.ravel()"),
    f"{SEARCH_ENC}ǁLatentTablesǁ__init____mutmut_89": (
        "the support's tables stacked on axis 1 (actions before the classes) -> axis 2",
        "the support is only read by forward_deterministic, which sums over the last axis (the "
        "classes of y) and asks all() of the two others: their order does not matter"),
    "kinematic.counterexamples.objectives.x_inverse_dynamics_abstraction__mutmut_8": (
        "labels not yet given: -1 -> -2", "they are only tested with < 0"),
    "kinematic.counterexamples.objectives.x_pcid_posteriors__mutmut_25": (
        "reshape(-1) -> reshape(-2)", "NumPy treats any negative size as 'infer'"),
    **dict.fromkeys([f"kinematic.counterexamples.objectives.x_pcid_target_abstraction__mutmut_{k}"
                     for k in (16, 17)], (
        "the key of an unseen x', ('unseen', y) -> ('XXunseenXX', y) / ('UNSEEN', y)",
        "any tag keeps the key distinct for each y and from every posterior (a tuple of "
        "numbers)")),
    "kinematic.counterexamples.objectives.x_inverse_dynamics_abstraction__mutmut_36": (
        "members.append(y) -> members.append(None)",
        "a class's members are only read as 'members and reached[members[0]]': the first "
        "member, put there when the class is opened, and the list's truth"),
    "kinematic.counterexamples.objectives.x_roll_in__mutmut_9": (
        "sum(visitations, zeros(m)) -> sum(visitations)",
        "0 + an array is the same array: there is always one policy at least"),
}

LIVE: dict[str, str] = {
    "kinematic.exogenous_spec.x__check_product_size__mutmut_31": (
        "the memory estimate of a compact spec's product: bytes x (entries + states) -> "
        "(entries - states): the verdict changes only for a product within 2 x states x "
        "PRODUCT_BYTES_PER_ENTRY bytes of the machine's memory; no test builds one"),
    f"{EXO}__probabilities__mutmut_45": (
        "a float chain row's |total - 1| > atol -> >= atol: a row off by exactly atol (to the "
        "last bit) refused; no test builds such floats"),
    f"{EXO_CHECK}ǁ_Comparisonǁ__call____mutmut_8": (
        "float entries compared |a - b| <= atol -> < atol: entries exactly atol apart (to the "
        "last bit) refused; no test builds such floats"),
    f"{EXO_SEARCH}ǁ_Numbersǁequal__mutmut_7": (
        "the float search's |a - b| <= tol -> < tol: differences of exactly SLACK * width * "
        "atol (to the last bit) left out; no test builds such floats"),
    f"{EXO_SEARCH}__scaled__mutmut_12": (
        "scale // denominator -> scale / denominator: exact while the rows fit int64 (scale <= "
        "2^30, below 2^53), but beyond 2^30 the object rows hold floats, inexact past 2^53; the "
        "lock with a bit flipping with probability 3^-41 still finds its partition (the "
        "roundings agree on both sides of each comparison)"),
    **dict.fromkeys([f"{EXO_SEARCH}__scaled__mutmut_{k}" for k in (13, 19, 21)], (
        "the rows' dtype int64 or object by the scale -> numpy's choice (int64 whenever the "
        "scaled rows fit): beyond a scale of 2^31 the products of two scaled entries wrap "
        "modulo 2^64 in _endogenous, so a product check can pass falsely only when the two "
        "sides differ by a multiple of 2^64; the 2^-40 lock of the tests does not")),
    f"{EXO_SEARCH}ǁ_Layerǁ_exogenous_blocks__mutmut_17": (
        "the indicator in the rows' dtype -> float64: exact for int64 rows (sums below 2^53), "
        "but object rows (scale beyond 2^30) times floats are floats, inexact past 2^53; the "
        "3^-41 lock's sums still compare as they should"),
    **dict.fromkeys([f"{EXO_SEARCH}__search__mutmut_{k}" for k in (21, 33, 56, 63)], (
        "the A* stops at the first complete class count (break for continue, bound >= best, "
        "or bounds raised by 2, which makes them inadmissible): other class counts per layer "
        "with the same total are lost. Only an MDP whose coarsest factorisations differ in "
        "their classes per layer kills it; no tested MDP has one, nor did 11,201 random "
        "horizon-3 MDPs of widths 1, 2, 4")),
    **dict.fromkeys([f"{EXO_SEARCH}ǁEndogenousFactorisationsǁ__repr____mutmut_{k}"
                     for k in (3, 4)], (
        "' or ' between the classes per layer of coarsest partitions -> 'XX or XX' / ' OR ': "
        "printed only when they differ in their classes per layer (see _search above)")),
    **dict.fromkeys([f"homer.sweep.x__local_results__mutmut_{k}" for k in (30, 32, 34)], (
        "pool.shutdown(wait=True, cancel_futures=True) -> wait False / None / absent: a "
        "stopped local sweep returns while its workers finish the task they run (its record "
        "is lost, the task reruns next time); no test watches the workers after a stop")),
    "kinematic.inseparability.x__group_float__mutmut_65": (
        "projection gap > threshold -> >= threshold: drops a candidate pair whose projection gap "
        "equals the window atol * min(sum of weights, 2 widest * max weight) to the last bit; "
        "no test builds such floats"),
    "kinematic.certified_induction.x_layer_eta__mutmut_43": (
        "the certification margin 4 gamma + 8 u -> 4 gamma - 8 u. A decision is certain when "
        "top > second (1 + margin) in floats; that proves the exact order when the margin is "
        "at least 2 gamma / (1 - gamma) plus about 2 u for the comparison's own two roundings. "
        "With n = 3 + d roundings, 4 gamma - 8 u still covers it for d >= 2 successors; for "
        "d = 1 (no sum: 3 roundings happen, gamma_4 is charged) it meets the need only to "
        "first order. A failure needs a pair of Q whose floats err by the worst-case bound in "
        "opposite directions; no test can build such floats"),
    "kinematic.certified_induction.x_rounding_gamma__mutmut_4": (
        "gamma_n's denominator 1 - n u -> 2 - n u: gamma about halves. Exact mode's margin keeps "
        "2 gamma + 8 u (enough); the float32 step bound falls to about (d + 3) u (1 + (d + 3) u "
        "/ 2), below the derived worst case (d + 3) u + ((d + 2)**2 + 1) u**2 by O(d**2 u**2), "
        "about 10**-14 of a spread; real float32 steps round far less (checked in rationals by "
        "test_one_single_precision_step_is_within_its_bound), so no test can see it"),
    **dict.fromkeys([f"{BATCHED}ǁ_Layersǁbackward__mutmut_{k}" for k in (3, 5)], (
        "the ones of the bias gradients' product float32 -> float64: numpy then sums each bias "
        "gradient in float64 and rounds it once to float32, a difference of float32 rounding "
        "that no test pins (the gradients match autograd's to rtol 1e-4)")),
    **dict.fromkeys([f"{BATCHED}ǁBatchedLearnerǁ_rollout__mutmut_{k}"
                     for k in (20, 22, 25, 27, 82, 99, 101, 104, 106)], (
        "a rollout's intermediate arrays (rewards, values, the following return and advantage, "
        "the normalised bonus) float32 -> float64: GAE's recursion runs in float64 and its "
        "results are rounded once into the float32 returns and advantages, a difference of "
        "float32 rounding that no test pins (GAE is checked to rtol 1e-6)")),
    **dict.fromkeys([f"homer.baselines.pcid.x__learn__mutmut_{k}" for k in (112, 113, 115)], (
        "the training predictions' logits shifted by + their row maximum, or by the largest "
        "of all rows: the same probabilities unless exp overflows or underflows, which the "
        "tests' training logits never reach (the decoder's copy is tested with large logits)")),
    "homer.baselines.pcid.x__learn__mutmut_142": (
        "KMeans(n_init=10) -> 11: one more k-means start, which on the tests' well-separated "
        "predictions finds the same clusters"),
    **dict.fromkeys([f"homer.baselines.pcid.x__learn__mutmut_{k}" for k in (138, 141)], (
        "KMeans(random_state=seed) -> None / absent: k-means starts from numpy's global "
        "generator; on the tests' well-separated predictions every start finds the same "
        "centres in the same order, so no test sees the run depend on that generator")),
    **dict.fromkeys([f"homer.baselines.pcid.x__learn__mutmut_{k}"
                     for k in (171, 175, 196, 200)], (
        "np.divide(..., out=np.zeros_like(...), where=count > 0) -> out None / absent: the "
        "model rows and mean rewards of (abstract state, action) pairs never tried are left "
        "as numpy allocates them instead of 0; fresh allocations hold zeros in the tests' runs "
        "(test_pcids_model_of_an_action_never_tried_leads_nowhere passes with them)")),
}
