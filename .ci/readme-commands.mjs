// Prints the README's set-up block (its first ```sh fence), so CI runs the commands exactly as a
// newcomer reads them. Fails when the block is missing or empty.
import { readFileSync } from 'node:fs';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1]?.trim();
if (!block) {
  console.error('README.md has no ```sh block with the set-up commands');
  process.exit(1);
}
console.log(block);
