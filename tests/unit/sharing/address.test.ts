/**
 * Share addresses (src/sharing/address.ts): `<profile>#<share>.<schema>.<table>`, where a share
 * name may hold dots and schema and table names may not, so the last two dots divide; names that
 * cannot be a table's are refused naming the address.
 */
import { describe, expect, it } from 'vitest'
import { isShareAddress, parseCoordinates, parseShareAddress } from '../../../src/sharing/address.ts'
import { TableError } from '../../../src/table/types.ts'

function refusal(fn: () => unknown): TableError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(TableError)
    expect((error as TableError).code).toBe('sharing')
    return error as TableError
  }
  throw new Error('expected the address to be refused')
}

describe('isShareAddress', () => {
  it('is a path with a #, not a URL with a fragment', () => {
    expect(isShareAddress('profiles/team.share#retail.sales.orders')).toBe(true)
    expect(isShareAddress('C:\\profiles\\p.share#a.b.c')).toBe(true)
    expect(isShareAddress('public/tables/letters')).toBe(false)
    expect(isShareAddress('https://host/tables/t#frag')).toBe(false)
    expect(isShareAddress('HTTP://host/t#a.b.c')).toBe(false)
  })
})

describe('parseShareAddress', () => {
  it('splits profile and coordinates at the last #', () => {
    expect(parseShareAddress('team.share#retail.sales.orders')).toEqual({
      profile: 'team.share',
      table: { share: 'retail', schema: 'sales', table: 'orders' },
    })
    expect(parseShareAddress('dir#1/p.share#s.d.t').profile).toBe('dir#1/p.share')
  })

  it('gives the dots before the last two to the share name', () => {
    expect(parseShareAddress('p#acme.eu.retail.sales.orders').table).toEqual({
      share: 'acme.eu.retail',
      schema: 'sales',
      table: 'orders',
    })
  })

  it('refuses an address without a profile, naming it', () => {
    const e = refusal(() => parseShareAddress('#s.d.t'))
    expect(e.message).toBe("table address '#s.d.t' has no profile file before the #")
    expect(e.url).toBe('#s.d.t')
  })

  it('refuses coordinates that are not three non-empty names', () => {
    for (const coords of ['s.d', 'table', '.d.t', 's..t', 's.d.', '', '..']) {
      const e = refusal(() => parseShareAddress(`p.share#${coords}`))
      expect(e.message).toBe(
        `table address 'p.share#${coords}' has '${coords}' after the #, expected <share>.<schema>.<table>`,
      )
    }
  })

  it('refuses names with a space, a slash or a control character, or over 255 characters', () => {
    const cases: Array<[string, string]> = [
      ['my share.d.t', 'share'],
      ['s.sa les.t', 'schema'],
      ['s.d.ta/ble', 'table'],
      ['s.d.t\u0007', 'table'],
      ['s.d.t\u007f', 'table'],
      [`${'x'.repeat(256)}.d.t`, 'share'],
    ]
    for (const [coords, what] of cases) {
      const e = refusal(() => parseShareAddress(`p#${coords}`))
      expect(e.message).toContain(`has a ${what} name`)
    }
    expect(parseShareAddress(`p#${'x'.repeat(255)}.d.t`).table.share).toHaveLength(255)
  })
})

describe('parseCoordinates', () => {
  it('parses bare coordinates and names them alone in errors', () => {
    expect(parseCoordinates('lab.golden.dv_cm')).toEqual({ share: 'lab', schema: 'golden', table: 'dv_cm' })
    expect(refusal(() => parseCoordinates('lab.golden')).message).toBe(
      "table address 'lab.golden' has 'lab.golden' after the #, expected <share>.<schema>.<table>",
    )
  })

  it('keeps non-ASCII and punctuation other than the refused characters', () => {
    expect(parseCoordinates('ventes-été.schéma_1.table-2$')).toEqual({
      share: 'ventes-été',
      schema: 'schéma_1',
      table: 'table-2$',
    })
  })
})
