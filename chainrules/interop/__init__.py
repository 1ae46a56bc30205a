"""Rules inside the AD engines people already use: PyTorch, JAX and autograd.

One module per framework, each importing its framework only when it is
imported itself (``import chainrules`` imports none of them):

* ``chainrules.interop.torch``: ``wrap(f)``, a ``torch.autograd.Function``
  for ``f``; ``module(obj)``, an ``nn.Module`` learning a callable object's
  fields.
* ``chainrules.interop.jax``: ``wrap(f)``, a ``jax.custom_vjp`` (or, with
  ``mode="forward"``, a ``jax.custom_jvp``) running the rules on the host.
* ``chainrules.interop.autograd``: ``wrap(f)``, an autograd primitive.

``f`` is any function with registered rules: a numpy function such as
``np.linalg.solve`` (after ``import chainrules``) or a function or callable
object of your own with an ``rrule`` and ``frule``. Second derivatives
work too (through PyTorch and autograd in both modes, through JAX reverse
over reverse): the reference engines (``chainrules.engines``) differentiate
the rule's own pullback and pushforward (``_second_order``).
docs/interop.md lists what each framework supports and what it costs.
"""
