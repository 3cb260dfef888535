/**
 * Plain tables: an http(s) URL, read as it is (a static host, an S3-style listing server, a
 * bucket with public reads), and a local folder, which the CLI's host serves on loopback so the
 * reader always takes the HTTP path (DESIGN.md, headless contract). Tables under a folder URL are
 * listed with ListObjectsV2 or the folder's static index (catalog.ts).
 */
import type { TableSource } from '../types.ts'
import { listTables } from './catalog.ts'

export const httpSource: TableSource = {
  async open(address) {
    const url = address.endsWith('/') ? address : `${address}/`
    return { url, display: url, localize: m => m, close: async () => {} }
  },
  list: listTables,
}

export const folderSource: TableSource = {
  open: (address, { flag, host }) => host.serveFolder(address, flag),
}
