B	initial_hJ–Á;>¨—G¿›Ø>ù
4?