// Express 4 is installed under the alias `express4` (next to Express 5) so both are tested;
// it has no types of its own, and its API used here is typed the same as Express 5's.
declare module "express4" {
  import express from "express";
  export default express;
}
