"""One process-wide v7 order across threads: no duplicates, each thread's UUIDs increasing, and
an order that agrees with happens-before between threads (checked through a lock)."""

import threading

import uuidkit


class Published:
    """The last UUID (as int) a thread published under the lock, and the order violations seen.

    A thread that takes the lock after another released it (having published) must generate
    a greater UUID: the other's UUID happened before."""

    def __init__(self):
        self.lock = threading.Lock()
        self.last = -1
        self.violations = []

    def generate_after(self, make):
        with self.lock:
            first, last = make()
            if first <= self.last:
                self.violations.append((self.last, first))
            self.last = last


def run_threads(n, target):
    errors = []

    def wrap(i):
        try:
            target(i)
        except BaseException as e:  # surfaced in the main thread
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def strictly_increasing(xs):
    return all(a < b for a, b in zip(xs, xs[1:]))


def test_uuid7_eight_threads():
    n_threads, per_thread = 8, 200_000
    pub = Published()
    results = [None] * n_threads

    def work(t):
        uuid7 = uuidkit.uuid7
        out = []
        append = out.append
        for i in range(per_thread):
            if i % 64 == 0:
                # Generate while holding the token: the happens-before check.
                def make():
                    v = uuid7().int
                    append(v)
                    return v, v
                pub.generate_after(make)
            else:
                append(uuid7().int)
        results[t] = out

    run_threads(n_threads, work)
    assert not pub.violations, f"{len(pub.violations)} lock-ordered UUIDs were not greater"
    for t, out in enumerate(results):
        assert len(out) == per_thread
        assert strictly_increasing(out), f"thread {t} not strictly increasing"
    assert len(set().union(*results)) == n_threads * per_thread, "duplicates across threads"


def test_uuid7_and_many_mixed_eight_threads():
    n_threads, rounds, chunk = 8, 40, 1000
    pub = Published()
    results = [None] * n_threads

    def work(t):
        out = []
        for r in range(rounds):
            many = [u.int for u in uuidkit.uuid7_many(chunk)]
            assert len(many) == chunk
            out += many
            out += [uuidkit.uuid7().int for _ in range(200)]
            raw = uuidkit.uuid7_bytes(100)
            out += [int.from_bytes(raw[i:i + 16], "big") for i in range(0, len(raw), 16)]
            if r % 4 == 0:
                def make():
                    vs = [u.int for u in uuidkit.uuid7_many(chunk)]
                    out.extend(vs)
                    return vs[0], vs[-1]
                pub.generate_after(make)
                def make_one():
                    v = uuidkit.uuid7().int
                    out.append(v)
                    return v, v
                pub.generate_after(make_one)
        results[t] = out

    run_threads(n_threads, work)
    assert not pub.violations, f"{len(pub.violations)} lock-ordered UUIDs were not greater"
    total = 0
    for t, out in enumerate(results):
        assert strictly_increasing(out), f"thread {t}: uuid7/uuid7_many/uuid7_bytes out of order"
        total += len(out)
    assert len(set().union(*results)) == total, "duplicates across threads"


def test_uuid7_many_chunks_contiguous_with_singles():
    # Everything made before a call is smaller than the batch, everything after is greater.
    before = uuidkit.uuid7()
    batch = uuidkit.uuid7_many(5000)
    after = uuidkit.uuid7()
    assert before < batch[0] and batch[-1] < after
    assert strictly_increasing(batch)


def test_uuid7_methods_four_threads():
    for method in ("random", "precision"):
        n_threads, per_thread = 4, 50_000
        pub = Published()
        results = [None] * n_threads

        def work(t):
            out = []
            for i in range(per_thread):
                if i % 32 == 0:
                    def make():
                        v = uuidkit.uuid7(method=method).int
                        out.append(v)
                        return v, v
                    pub.generate_after(make)
                else:
                    out.append(uuidkit.uuid7(method=method).int)
            results[t] = out

        run_threads(n_threads, work)
        assert not pub.violations, method
        for out in results:
            assert strictly_increasing(out), method
            assert all((v >> 76) & 0xF == 7 for v in out[:100])
        assert len(set().union(*results)) == n_threads * per_thread, method
