"""Tribolo's board geometry: everything precomputed for one board size and shared by
every state of that size (the rays walked by a move's flips, the packed form of a
bitboard that the move generator reads, the generator itself), kept in a small cache so
that a new game of a size already seen builds nothing.

The representation (the hot path of every search): each player's cells, the walls and
the legal moves of the player to move are bitboards held as Python ints (bit
``y * width + x``); legal moves come from a shift-and-mask flood per direction and
opponent (:func:`~parlour.games.tribolo.movegen.compile_moves`); a ``bytearray`` of
owners and the precomputed rays here make a move a short walk per direction."""

from __future__ import annotations

import threading
from collections import OrderedDict

from parlour.games.tribolo.board import DIRECTIONS
from parlour.games.tribolo.movegen import REVERSED_BYTE, compile_moves


class Geometry:
    """Everything precomputed for one board size (shared by every state of that size).

    ``rays[c]``: for each direction whose first step from ``c`` stays on the board, a
    tuple ``(first, rest, cells, prefixes)``: ``cells`` are the cell indices walked
    outwards (``first`` and ``rest`` split off for the hot loop of :meth:`jumps`) and
    ``prefixes[i]`` = the packed bitmask (:meth:`pack`) of the first ``i`` of them;
    ``packed_cells[c]``: the packed bitmask of cell ``c``.  ``moves4``: the move
    generator compiled for this size (:func:`compile_moves`).
    """

    _cache: OrderedDict[tuple[int, int], Geometry] = OrderedDict()
    _CACHED = 8
    _lock = threading.Lock()
    """Geometries kept for sizes no game holds any more (each game holds its own)."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = n = width * height
        self.full = (1 << n) - 1
        self.nbytes = (n + 7) // 8
        self.digits = f"0{n}b"
        """``format`` spec of a bitboard as ``cells`` binary digits (``legal_mask``)."""
        self.stride = (height + 1) * width
        self.packed_cells = tuple(self.pack(1 << c) for c in range(n))
        rays = []
        for c in range(n):
            x, y = c % width, c // width
            per_cell = []
            for dx, dy in DIRECTIONS:
                cells = []
                cx, cy = x + dx, y + dy
                while 0 <= cx < width and 0 <= cy < height:
                    cells.append(cy * width + cx)
                    cx, cy = cx + dx, cy + dy
                if len(cells) >= 2:  # a jump needs a run and a closing cell
                    prefixes = [0]
                    for cell in cells:
                        prefixes.append(prefixes[-1] | self.packed_cells[cell])
                    per_cell.append((cells[0], tuple(cells[1:]), tuple(cells), tuple(prefixes)))
            rays.append(tuple(per_cell))
        self.rays = tuple(rays)
        self.moves4 = compile_moves(width, height)
        self.observation_shape = (5, height, width)

    @classmethod
    def of(cls, width: int, height: int) -> Geometry:
        with cls._lock:  # threads share the cache (a server's requests)
            geo = cls._cache.get((width, height))
            if geo is not None:
                cls._cache.move_to_end((width, height))
                return geo
        geo = cls(width, height)
        with cls._lock:
            cls._cache[(width, height)] = geo
            while len(cls._cache) > cls._CACHED:
                cls._cache.popitem(last=False)
        return geo

    def turn(self, board: int) -> int:
        """``board`` turned by 180 degrees: bit ``c`` -> bit ``cells - 1 - c``."""
        n = self.cells
        turned = int.from_bytes(board.to_bytes(self.nbytes, "big").translate(REVERSED_BYTE), "little")
        return turned >> (8 * self.nbytes - n)

    def pack(self, board: int) -> int:
        """The packed form of a plain bitboard (what :func:`compile_moves`'s generator
        reads): the board, the board again, then the board turned by 180 degrees twice,
        ``stride`` bits apart."""
        s, turned = self.stride, self.turn(board)
        return board | board << s | turned << 2 * s | turned << 3 * s

    def moves(self, me: int, o1: int, o2: int, empty: int) -> int:
        """Bitboard of the empty cells where the owner of ``me`` has a jump (plain
        bitboards in; states keep packed boards and call ``moves4`` directly)."""
        pack = self.pack
        return self.moves4(pack(me), pack(o1), pack(o2), pack(empty))

    def __reduce__(self) -> tuple:
        """Pickled as its size: the tables are rebuilt (or found in the cache) on load,
        so a pickled state stays small."""
        return (Geometry.of, (self.width, self.height))

    def jumps(self, board: bytearray, cell: int, player: int) -> list[tuple[int, int, tuple]]:
        """``player``'s jumps from the empty ``cell`` (rule 3), without changing the board:
        ``(opponent, run length, ray)`` for each ray whose run of one opponent's cells is
        closed by a cell of ``player``."""
        found = []
        for ray in self.rays[cell]:
            o = board[ray[0]]
            if o == player or o > 2:
                continue
            i = 1
            for c in ray[1]:
                v = board[c]
                if v != o:
                    if v == player:
                        found.append((o, i, ray))
                    break
                i += 1
        return found

    def captures(self, board: bytearray, cell: int, player: int) -> list[int]:
        """Cells ``player`` would take from each seat by playing ``cell`` (no change).

        ``[from seat 0, from seat 1, from seat 2]``; the entry of ``player`` is 0.  All
        zeros means ``cell`` is not a move of ``player`` (or is not empty).
        """
        taken = [0, 0, 0]
        for o, run, _ in self.jumps(board, cell, player):
            taken[o] += run
        return taken
