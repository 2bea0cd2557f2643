"""``kinematic.numbers.number_text``: the one way the toolkit writes a number as short readable
text (reprs, drawings, analysis tables)."""

import sys
from fractions import Fraction

import numpy as np

from kinematic.numbers import number_text


def test_an_exact_number_is_written_as_p_over_q():
    assert number_text(Fraction(-6, 8)) == "-3/4"
    assert number_text(3) == "3"


def test_an_exact_number_beyond_pythons_digit_limit_is_written_in_full():
    zeros = sys.get_int_max_str_digits() + 1
    assert number_text(Fraction(1, 10**zeros)) == "1/1" + "0" * zeros


def test_a_float_gets_the_requested_significant_digits():
    assert number_text(0.1 + 0.2) == "0.3"
    assert number_text(2 / 3, digits=3) == "0.667"
    assert number_text(2 / 3, digits=10) == "0.6666666667"


def test_a_numpy_float_is_rounded_as_a_float_not_written_as_its_binary_fraction():
    assert number_text(np.float32(0.1), digits=3) == "0.1"


def test_a_string_from_a_json_result_is_kept_as_it_is():
    assert number_text("12/7") == "12/7"


def test_a_float_gets_six_significant_digits_by_default():
    assert number_text(2 / 3) == "0.666667"
