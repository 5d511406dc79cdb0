/**
 * The one typed access to D1, shared by the Worker and the objects: drizzle over the ledger's schema.
 * Column names are written only through the schema's column objects, so renaming one fails typecheck
 * wherever it is used. `prepared` turns a query into a D1 statement for `d1.batch` (one transaction).
 */
import { type AnyColumn, SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema.js";

export type Db = ReturnType<typeof makeDb>;

function makeDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

// Building a drizzle instance walks the whole schema: once per binding, not once per query.
const instances = new WeakMap<D1Database, Db>();

export function db(d1: D1Database): Db {
  let d = instances.get(d1);
  if (!d) {
    d = makeDb(d1);
    instances.set(d1, d);
  }
  return d;
}

export { schema };

const dialect = new SQLiteAsyncDialect();

/** A drizzle query (or SQL chunk) as a D1 prepared statement, to run several in one `d1.batch`. */
export function prepared(
  d1: D1Database,
  q: SQL | { toSQL(): { sql: string; params: unknown[] } },
): D1PreparedStatement {
  const { sql: text, params } = q instanceof SQL ? dialect.sqlToQuery(q) : q.toSQL();
  return d1.prepare(text).bind(...params);
}

/** A column's bare name (`"user_id"`), where SQL wants it unqualified: INSERT column lists. */
export function col(c: AnyColumn): SQL {
  return sql`${sql.identifier(c.name)}`;
}

/** `excluded."<column>"` in an upsert's SET or WHERE: the value the insert tried to write. */
export function excluded(c: AnyColumn): SQL {
  return sql`excluded.${sql.identifier(c.name)}`;
}
