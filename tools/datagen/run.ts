/**
 * The sample-table generator as a tool script, for `npm start`, `npm test` and `npm run data`:
 * `tsx tools/datagen/run.ts [--if-missing] […snaptrain data flags]`. Same flags and output as
 * `snaptrain data` (cli.ts); kept out of the CLI's own start-up so that product code never loads
 * the generator or its devDependency (hyparquet-writer).
 */
import { defaultIo, reportError, safeIo } from '../../src/cli/io.ts'
import { run } from './cli.ts'

const io = safeIo(defaultIo())
try {
  process.exitCode = await run(process.argv.slice(2), io)
} catch (e) {
  reportError(io, e)
  process.exitCode = 1
}
