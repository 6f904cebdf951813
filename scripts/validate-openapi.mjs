// Validates OpenAPI documents with @apidevtools/swagger-parser (the JSON Schema of the OpenAPI
// version, then its own semantic checks): `node scripts/validate-openapi.mjs [file…]` (default
// openapi.json). One line per file; exits 1 when any is invalid. `npm test` runs it (openapi:validate).
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';

const files = process.argv.slice(2);
let failed = false;
for (const file of files.length ? files : ['openapi.json']) {
  try {
    await SwaggerParser.validate(JSON.parse(readFileSync(file, 'utf8')));
    console.log(`${file}: valid`);
  } catch (err) {
    failed = true;
    console.error(
      `${file}: ${String(err instanceof Error ? err.message : err)
        .trim()
        .replace(/\s*\n\s*/g, '; ')}`,
    );
  }
}
process.exitCode = failed ? 1 : 0;
