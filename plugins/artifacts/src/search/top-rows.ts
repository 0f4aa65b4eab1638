/**
 * The first `k` items of a stream under an ordering, without sorting the whole stream: a binary heap
 * holding the `k` best so far with the worst on top (n log k instead of n log n), for search pages
 * under an ordering other than the index's.
 */
export class TopRows<T> {
  private readonly heap: T[] = [];

  /** `before(a, b)`: whether `a` comes before `b` in the wanted order. */
  constructor(private readonly k: number, private readonly before: (a: T, b: T) => boolean) {}

  offer(item: T): void {
    if (this.k <= 0) return;
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(item);
      this.up(heap.length - 1);
    } else if (this.before(item, heap[0]!)) {
      heap[0] = item;
      this.down(0);
    }
  }

  /** The kept items in the wanted order. */
  sorted(): T[] {
    return [...this.heap].sort((a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0));
  }

  // The heap's top is the item that comes last: a parent never comes before its children.
  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[parent]!, heap[i]!)) return;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let last = i;
      if (left < heap.length && this.before(heap[last]!, heap[left]!)) last = left;
      if (right < heap.length && this.before(heap[last]!, heap[right]!)) last = right;
      if (last === i) return;
      [heap[last], heap[i]] = [heap[i]!, heap[last]!];
      i = last;
    }
  }
}
