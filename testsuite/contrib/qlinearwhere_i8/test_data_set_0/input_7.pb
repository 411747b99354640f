BZsJ
×#=