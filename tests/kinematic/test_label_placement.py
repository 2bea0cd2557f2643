"""Edge labels placed along their edges (``kinematic.label_placement``)."""

from kinematic.label_placement import CANDIDATES, place_labels


def boxes(edges, sizes, fractions):
    result = []
    for ((x0, y0), (x1, y1)), (width, height), t in zip(edges, sizes, fractions, strict=True):
        x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
        result.append((x - width / 2, y - height / 2, x + width / 2, y + height / 2))
    return result


def overlap(first, second):
    return (min(first[2], second[2]) > max(first[0], second[0])
            and min(first[3], second[3]) > max(first[1], second[1]))


def test_labels_of_edges_into_one_node_do_not_overlap():
    edges = [((0, y), (100, 0)) for y in (-30, -10, 10, 30)]  # four edges converging
    sizes = [(40, 12)] * 4
    placed = boxes(edges, sizes, place_labels(edges, sizes))
    assert not any(overlap(a, b) for k, a in enumerate(placed) for b in placed[k + 1:])


def test_a_label_is_moved_off_an_obstacle():
    edge, size = ((0, 0), (100, 0)), (20, 10)
    assert place_labels([edge], [size]) == [CANDIDATES[0]]
    [fraction] = place_labels([edge], [size], obstacles=[(40, -5, 60, 5)])
    assert not overlap(boxes([edge], [size], [fraction])[0], (40, -5, 60, 5))


def test_a_label_leaves_the_crossing_of_two_edges():
    edges = [((0, 0), (100, 0)), ((50, -50), (50, 50))]  # crossing at the middle of both
    fraction = place_labels(edges, [(20, 10), (20, 10)])[0]
    assert fraction != 0.5
    [box] = boxes(edges[:1], [(20, 10)], [fraction])
    assert not box[0] <= 50 <= box[2]


def test_with_no_free_place_a_label_takes_the_least_covered_one():
    edge, size = ((0, 0), (100, 0)), (20, 10)
    wall = (0, -5, 100, 5)  # covers the whole edge: every place overlaps it equally
    assert place_labels([edge], [size], obstacles=[wall]) == [CANDIDATES[0]]
    most_of_it = (0, -5, 62, 5)  # only a label centred at 3/4 of the way is clear of it
    assert place_labels([edge], [size], obstacles=[most_of_it]) == [0.75]
