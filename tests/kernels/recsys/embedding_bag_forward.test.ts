/** embedding_bag_forward vs its reference (embedding-bag.fixtures.ts) on random and edge-sized bags. */
import { describe } from 'vitest'
import { bagParityTests } from './embedding-bag.fixtures.ts'

describe('embedding_bag_forward matches its reference', () => bagParityTests('forward'))
