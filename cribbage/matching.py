"""Maximum-cardinality matching in a general graph (Edmonds' blossom algorithm).

The seating uses it to answer exactly "can everyone meet someone new this round?": the
players are the vertices, the pairs still allowed are the edges, and a largest matching
seats as many allowed pairs as any seating can. No library of the standard library does
this, so it is written here, small: O(V^3), a few milliseconds for a club of 40.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


def max_matching(adjacency: Sequence[Sequence[int]], mate: Sequence[int] | None = None
                 ) -> list[int]:
    """A largest matching of the graph `adjacency` (vertex i's neighbours), grown from
    `mate` (mate[i] is i's partner or -1); returns the new mate list.

    Vertices matched in `mate` stay matched (an augmenting path only swaps partners), so
    a caller can start from the matching it would like and keep most of it. Raises
    ValueError when `mate` is not a matching of the graph.
    """
    n = len(adjacency)
    adj = [list(dict.fromkeys(a)) for a in adjacency]
    match = [-1] * n if mate is None else list(mate)
    if len(match) != n:
        raise ValueError(f"mate has {len(match)} entries for {n} vertices")
    for v, m in enumerate(match):
        if m != -1 and (not 0 <= m < n or match[m] != v or m not in adj[v]):
            raise ValueError(f"mate[{v}] = {m}: not a matching edge of the graph")
    for root in range(n):
        if match[root] == -1 and adj[root]:
            end, parent = _augmenting_path(adj, match, root)
            while end != -1:  # flip the path's edges from its free end back to the root
                prev = parent[end]
                nxt = match[prev]
                match[end], match[prev] = prev, end
                end = nxt
    return match


def _augmenting_path(adj: list[list[int]], match: list[int], root: int
                     ) -> tuple[int, list[int]]:
    """A free vertex reachable from `root` by an alternating path (or -1), with the parent
    links that trace it, contracting blossoms on the way."""
    n = len(adj)
    used = [False] * n
    parent = [-1] * n
    base = list(range(n))
    used[root] = True
    queue = deque([root])

    def lca(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if match[a] == -1:
                break
            a = parent[match[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[match[b]]

    def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[match[v]]] = True
            parent[v] = child
            child = match[v]
            v = parent[match[v]]

    while queue:
        v = queue.popleft()
        for to in adj[v]:
            if base[v] == base[to] or match[v] == to:
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                b = lca(v, to)
                blossom = [False] * n
                mark(v, b, to, blossom)
                mark(to, b, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if match[to] == -1:
                    return to, parent
                used[match[to]] = True
                queue.append(match[to])
    return -1, parent
