/**
 * The Parquet types the rest of src/ speaks (footers, schema trees, decoded arrays, the byte
 * source): hyparquet's, named here so that nothing outside src/parquet/ imports hyparquet.
 */
export type {
  AsyncBuffer,
  ColumnMetaData,
  Compressors,
  DecodedArray,
  FileMetaData,
  ParquetParsers,
  RowGroup,
  SchemaElement,
  SchemaTree,
} from 'hyparquet'
