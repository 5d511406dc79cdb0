/** Source files bundled as text (esbuild `loader: { ".py": "text" }`; vitest.config.ts does the same). */
declare module "*.py" {
  const source: string;
  export default source;
}
