/**
 * Unity Catalog: `uc:<catalog>.<schema>.<table>`, read with the credentials the catalog vends
 * (storage/unity-catalog.ts is the client). The catalog says where the table is; the CLI's host
 * gives its endpoint and token (SNAPTRAIN_UC_ENDPOINT, SNAPTRAIN_UC_TOKEN) and the AWS region and
 * S3 endpoint of its bucket.
 */
import { S3Resolver } from '../../storage/s3-resolver.ts'
import type { UnityCatalogAccess } from '../../storage/types.ts'
import { openUnityCatalogTable, unityCatalogProvider, type UnityCatalogOptions } from '../../storage/unity-catalog.ts'
import { storagePageView } from '../s3/page-view.ts'
import { TableArgError, type AccessOptions, type OpenedAccess, type TableSource } from '../types.ts'

function catalogOptions(access: UnityCatalogAccess, opts: AccessOptions): UnityCatalogOptions {
  return {
    endpoint: access.endpoint,
    token: access.token,
    table: access.table,
    s3Endpoint: access.s3Endpoint,
    region: access.region,
    http: opts.http,
  }
}

/** Looks the table up in the catalog; the resolver vends credentials for it (or asks `opts.provider`). */
async function openAccess(access: UnityCatalogAccess, _location: unknown, opts: AccessOptions): Promise<OpenedAccess> {
  const table = await openUnityCatalogTable(catalogOptions(access, opts))
  const resolver = new S3Resolver({
    tableUrl: table.tableUrl,
    region: access.region,
    table: access.table,
    provider: opts.provider ?? table.provider,
    now: opts.now,
  })
  return { tableUrl: table.tableUrl, resolver }
}

export const unityCatalogSource: TableSource<UnityCatalogAccess> = {
  async open(address, { flag, host, http }) {
    const endpoint = host.env.SNAPTRAIN_UC_ENDPOINT
    const token = host.env.SNAPTRAIN_UC_TOKEN
    if (!endpoint || !token) {
      throw new TableArgError(
        `${flag}: ${address}: set SNAPTRAIN_UC_ENDPOINT (the catalog's URL) and SNAPTRAIN_UC_TOKEN`,
      )
    }
    const aws = await host.aws().catch(() => undefined)
    const access: UnityCatalogAccess = {
      kind: 'unity-catalog',
      endpoint: endpoint.endsWith('/') ? endpoint : `${endpoint}/`,
      token,
      table: address.slice(3),
      ...(aws?.region ? { region: aws.region } : {}),
      ...(aws?.endpoint ? { s3Endpoint: aws.endpoint } : {}),
    }
    // Where the table is comes from the catalog; the run's resolver vends credentials through it.
    const { tableUrl } = await openAccess(access, undefined, { http })
    return {
      url: tableUrl,
      display: address,
      path: address,
      access,
      resolver: this.resolver!(tableUrl, access, { http }),
      localize: m => m,
      close: async () => {},
    }
  },
  resolver: (tableUrl, access, opts) =>
    new S3Resolver({
      tableUrl,
      region: access.region,
      table: access.table,
      provider: opts.provider ?? unityCatalogProvider(catalogOptions(access, opts)),
      now: opts.now,
    }),
  openAccess,
  pageView: storagePageView,
}
