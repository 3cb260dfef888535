/**
 * `--qid` on the command line (ranking): a rank:* objective without it, with --weight, a --qid
 * column the table lacks and --qid for a family that does not rank are refused, naming the flag
 * or column, before any browser starts.
 */
import { describe, expect, it } from 'vitest'
import { runMain } from '../../support/cli.ts'

const TABLE = 'public/tables/marketing'
const train = (...args: string[]) => runMain(['train', '--table', TABLE, '--label', 'y', ...args])

describe('--qid', () => {
  it('rank:* needs it, and refuses row weights', async () => {
    const r = await train('--model', 'gbdt', '--params', '{"objective":"rank:ndcg"}')
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/--qid: rank:ndcg ranks rows within queries: name the query id column/)
    const w = await train('--model', 'gbdt', '--qid', 'day', '--weight', 'age', '--params', '{"objective":"rank:map"}')
    expect(w.stderr).toMatch(/--weight: rank:map weighs query groups, not rows/)
  })

  it('an unknown column is named; a family that does not rank refuses the flag', async () => {
    const r = await train('--model', 'gbdt', '--qid', 'nope', '--params', '{"objective":"rank:map"}')
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/query id column nope: not in the table/)
    expect(r.stderr).not.toMatch(/round/)
    const s = await train('--model', 'recsys', '--qid', 'day')
    expect(s.stderr).toMatch(/--qid: only for --model gbdt/)
  })
})
