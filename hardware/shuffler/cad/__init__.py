"""The shuffler's mechanism as a parametric model (build123d), with its export.

``params`` is pure Python; the other modules need the ``cad`` extra
(``pip install -e '.[cad]'``). Nothing on the Pi imports this package.
"""
