/**
 * A start-up pass over stored documents that an earlier version wrote in another shape: reads them
 * in pages by `_id` (`page(afterId)` answers those still to do after that id), hands each to `visit`
 * and counts its outcomes; `unchanged` (a replica or a second run got there first) is not counted.
 * Ordered by `_id`, the pass ends even while documents change, and one that stops half-way resumes
 * at the next start with what is still to do.
 */
export async function passOverDocuments<D extends { _id: string }, O extends string>(
  page: (afterId: string) => Promise<D[]>,
  visit: (document: D) => Promise<O | 'unchanged'>,
  counts: Record<O, number>,
): Promise<Record<O, number>> {
  let after = '';
  for (;;) {
    const batch = await page(after);
    if (batch.length === 0) return counts;
    for (const document of batch) {
      const outcome = await visit(document);
      if (outcome !== 'unchanged') counts[outcome] += 1;
    }
    after = batch[batch.length - 1]._id;
  }
}
