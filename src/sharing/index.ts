/**
 * Delta Sharing client: profiles, the REST calls, shared tables as snapshots with renewing URLs.
 * Everything outside src/sharing imports from here, but for the table sources (src/sources): the
 * registry recognises share addresses (address.ts) and the sharing source alone opens a session
 * for a share's access (access.ts).
 */
export { parseProfile, checkNotExpired } from './profile.ts'
export type { SharingProfile, BearerProfile, OAuthProfile, ProxiedProfile } from './profile.ts'
export { SharingClient } from './rest.ts'
export type { ShareCoordinates, SharedTableEntry, QueryRequest, QueryAnswer } from './rest.ts'
export { SharedTableSession, shareTableUrl } from './shared-table.ts'
export type { ShareOpenOptions } from './shared-table.ts'
export { isShareAddress, parseShareAddress, parseCoordinates } from './address.ts'
export { escapeName, pathSegment } from './names.ts'
export type { ShareAddress } from './address.ts'
export type { ShareAccess } from './access.ts'
