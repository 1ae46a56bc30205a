"""chainrules.testing: the checks that run the shipped rules' declared cases beyond the harness.

* ``edges``: the edge sweep (``python -m chainrules check --edges``): every
  declared case moved to the edges of its domain (empty and size-1 axes,
  0-d, huge, tiny, subnormal, infinite and NaN entries), with the layouts
  and 0-d seed forms of the harness's ``variants`` at each (and its
  ``wrong_shape`` probe, for a case that declares it); a
  rule declares what it refuses there beside its cases (``refuse_edges``).
* ``second_order``: a rule's pullback and pushforward must be differentiable
  themselves (``python -m chainrules check --order 2``), by an engine passed
  in (``engine=``; the reference engines of ``chainrules.engines`` by
  default): ``test_rrule_order2``, ``test_frule_order2``; a rule declares
  a second derivative out of reach beside its cases (``refuse_order2``).

They build on the harness of ``chainrules_core.testing``, which needs neither
the rules nor an engine; ``import chainrules`` imports neither of these.
"""

from .edges import refuse_edges, run_edge_sweep, sweep
from .second_order import refuse_order2, test_frule_order2, test_rrule_order2

__all__ = ["refuse_edges", "refuse_order2", "run_edge_sweep", "sweep", "test_frule_order2", "test_rrule_order2"]
